package io.github.distributelock.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.distributelock.benchmarks.library.Endpoints;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The JDBC hand-off row: on PostgreSQL, how long after a release in one JVM a waiter in
 * another JVM has the lock, with release notifications ({@code LISTEN}/{@code NOTIFY})
 * and with polling, the two taking turns in every round ({@link HandOffWorker}).
 */
public final class HandOffHarness {

	private static final Log logger = LogFactory.getLog(HandOffHarness.class);

	static final List<String> VARIANTS = List.of("notify", "poll");

	private final Endpoints endpoints;

	private final Settings settings;

	private final Path workDirectory;

	public HandOffHarness(Endpoints endpoints, Settings settings, Path workDirectory) {
		this.endpoints = endpoints;
		this.settings = settings;
		this.workDirectory = workDirectory;
	}

	public Measured<HandOffResult> run() throws Exception {
		Files.createDirectories(this.workDirectory);
		Map<String, List<HandOffResult.Round>> runs = new LinkedHashMap<>();
		List<RoundLoad> loads = new ArrayList<>();
		for (int round = 1; round <= this.settings.rounds(); round++) {
			String atStart = LoadAverage.now().toString();
			List<String> order = (round % 2 == 1) ? VARIANTS : List.of(VARIANTS.get(1), VARIANTS.get(0));
			for (String variant : order) {
				runs.computeIfAbsent(variant, (name) -> new ArrayList<>()).add(run(variant, round));
			}
			loads.add(new RoundLoad(round, atStart, LoadAverage.now().toString()));
		}
		List<HandOffResult> results = new ArrayList<>();
		for (String variant : VARIANTS) {
			results.add(HandOffResult.of(variant, runs.get(variant)));
		}
		return new Measured<>(loads, results);
	}

	private HandOffResult.Round run(String variant, int round) throws Exception {
		String name = "handoff-" + variant + "-" + round;
		Path boardFile = this.workDirectory.resolve(name + ".board");
		Files.deleteIfExists(boardFile);
		HandOffBoard.open(boardFile);
		Path result = this.workDirectory.resolve(name + ".txt");
		Files.deleteIfExists(result);
		int warmup = this.settings.quick() ? 20 : 100;
		int measured = this.settings.quick() ? 50 : 300;
		String loadBefore = LoadAverage.now().toString();
		ChildJvm.runWaiterAndHolder(HandOffWorker.class, this.endpoints, this.workDirectory, name,
				(role) -> List.of(variant, role, boardFile.toString(), Integer.toString(warmup),
						Integer.toString(measured), result.toString()));
		List<String> lines = Files.readAllLines(result);
		long timeouts = Long.parseLong(lines.get(lines.size() - 1).substring("timeouts ".length()));
		long[] sorted = Percentiles
			.sorted(lines.subList(0, lines.size() - 1).stream().mapToLong(Long::parseLong).toArray());
		HandOffResult.Round measuredRound = new HandOffResult.Round(round, sorted.length,
				Percentiles.of(sorted, 50) / 1000, Percentiles.of(sorted, 90) / 1000, Percentiles.of(sorted, 99) / 1000,
				timeouts, loadBefore, LoadAverage.now().toString());
		logger.info(String.format(
				"JDBC hand-off across JVMs (%s), round %d of %d: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms over %d "
						+ "hand-offs, %d timeouts (load average %s before, %s after)",
				variant, round, this.settings.rounds(), measuredRound.p50Micros() / 1000,
				measuredRound.p90Micros() / 1000, measuredRound.p99Micros() / 1000, sorted.length, timeouts, loadBefore,
				measuredRound.loadAfter()));
		return measuredRound;
	}

}
