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
 * Runs {@link InterleavedWorker} once per store, each in a fresh JVM, one store after the
 * other.
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

	public List<InterleavedResult> run(List<String> libraries) throws Exception {
		Files.createDirectories(this.workDirectory);
		Map<String, List<String>> byStore = libraries.stream()
			.collect(Collectors.groupingBy(Libraries::store, LinkedHashMap::new, Collectors.toList()));
		List<InterleavedResult> results = new ArrayList<>();
		for (Map.Entry<String, List<String>> store : byStore.entrySet()) {
			logger.info("Interleaved: " + store.getValue());
			Path result = this.workDirectory.resolve("interleaved-" + store.getKey() + ".json");
			Files.deleteIfExists(result);
			ChildJvm child = ChildJvm.start(InterleavedWorker.class, this.endpoints,
					this.workDirectory.resolve("interleaved-" + store.getKey() + ".log"),
					List.of(String.join(",", store.getValue()), Integer.toString(this.settings.interleavedRounds()),
							Integer.toString(batch(store.getKey())), result.toString()));
			try {
				child.await(Duration.ofMinutes(10));
				results.addAll(
						List.of(JsonMapper.builder().build().readValue(result.toFile(), InterleavedResult[].class)));
			}
			catch (Exception ex) {
				logger.warn("Interleaved run of " + store.getKey() + " failed: " + ex.getMessage());
			}
			finally {
				child.destroy();
			}
		}
		return results;
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
