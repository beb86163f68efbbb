package io.github.distributelock.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.distributelock.benchmarks.library.Endpoints;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs {@link InterleavedWorker} once per store and round, each time in a fresh JVM, one
 * store after the other, and keeps every round.
 */
public final class InterleavedHarness {

	private static final Log logger = LogFactory.getLog(InterleavedHarness.class);

	private final Endpoints endpoints;

	private final Settings settings;

	private final Path workDirectory;

	public InterleavedHarness(Endpoints endpoints, Settings settings, Path workDirectory) {
		this.endpoints = endpoints;
		this.settings = settings;
		this.workDirectory = workDirectory;
	}

	public Measured<InterleavedResult> run(List<String> libraries) throws Exception {
		Files.createDirectories(this.workDirectory);
		Map<String, List<String>> byStore = libraries.stream()
			.collect(Collectors.groupingBy(Libraries::store, LinkedHashMap::new, Collectors.toList()));
		Map<String, List<InterleavedRound>> rounds = new LinkedHashMap<>();
		libraries.forEach((library) -> rounds.put(library, new ArrayList<>()));
		List<RoundLoad> loads = new ArrayList<>();
		for (int round = 1; round <= this.settings.rounds(); round++) {
			String atStart = LoadAverage.now().toString();
			Map<String, InterleavedRound> thisRound = new LinkedHashMap<>();
			for (Map.Entry<String, List<String>> store : byStore.entrySet()) {
				for (InterleavedRound result : run(store.getKey(), store.getValue(), round)) {
					rounds.get(result.library()).add(result);
					thisRound.put(result.library(), result);
					logger.info(String.format("Interleaved %s, round %d of %d: p50 %.1f us, p99 %.1f us",
							result.library(), round, this.settings.rounds(), result.p50Micros(), result.p99Micros()));
				}
			}
			String atEnd = LoadAverage.now().toString();
			logEngineV1(thisRound, round, atStart, atEnd);
			loads.add(new RoundLoad(round, atStart, atEnd));
		}
		List<InterleavedResult> results = new ArrayList<>();
		rounds.forEach((library, measured) -> {
			if (!measured.isEmpty()) {
				results.add(InterleavedResult.of(library, measured));
			}
		});
		return new Measured<>(loads, results);
	}

	/**
	 * Logs today's engine against engine v1 at p50, for each engine v1 row of the round
	 * whose row of today ran beside it in the same JVM.
	 */
	private void logEngineV1(Map<String, InterleavedRound> round, int number, String atStart, String atEnd) {
		round.forEach((library, v1) -> {
			InterleavedRound today = EngineV1Libraries.is(library) ? round.get(EngineV1Libraries.today(library)) : null;
			if (today != null) {
				logger.info(String.format("Interleaved %s / %s, round %d: p50 %.1f / %.1f us = %.3f (load %s -> %s)",
						today.library(), library, number, today.p50Micros(), v1.p50Micros(),
						today.p50Micros() / v1.p50Micros(), atStart, atEnd));
			}
		});
	}

	private List<InterleavedRound> run(String store, List<String> libraries, int round) throws Exception {
		String name = "interleaved-" + store + "-" + round;
		Path result = this.workDirectory.resolve(name + ".json");
		Files.deleteIfExists(result);
		ChildJvm child = ChildJvm.start(InterleavedWorker.class, this.endpoints,
				this.workDirectory.resolve(name + ".log"),
				List.of(String.join(",", libraries), Integer.toString(this.settings.interleavedBatches()),
						Integer.toString(batch(store)), Integer.toString(round), result.toString()));
		try {
			child.await(Duration.ofMinutes(10));
			return List.of(JsonMapper.builder().build().readValue(result.toFile(), InterleavedRound[].class));
		}
		catch (Exception ex) {
			logger.warn("Interleaved run of " + store + ", round " + round + " failed: " + ex.getMessage());
			return List.of();
		}
		finally {
			child.destroy();
		}
	}

	/** Batches of a few tens of milliseconds, whatever the store's speed. */
	private static int batch(String store) {
		return switch (store) {
			case "memory" -> 20_000;
			case "zookeeper" -> 20;
			default -> 100;
		};
	}

}
