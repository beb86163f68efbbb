package io.github.distributelock.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.github.distributelock.benchmarks.library.Endpoints;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The scale runs: each library in a fresh JVM ({@link ScaleWorker}) locks and unlocks
 * many distinct keys on 16 threads, so that a per-key structure that is never freed shows
 * up in the store or in the heap.
 */
public final class ScaleHarness {

	private static final Log logger = LogFactory.getLog(ScaleHarness.class);

	private static final int THREADS = 16;

	private final Endpoints endpoints;

	private final Settings settings;

	private final Path workDirectory;

	public ScaleHarness(Endpoints endpoints, Settings settings, Path workDirectory) {
		this.endpoints = endpoints;
		this.settings = settings;
		this.workDirectory = workDirectory;
	}

	/**
	 * Runs the libraries of each store one after the other, and the stores side by side:
	 * each run only counts what is left in its own store.
	 */
	public List<ScaleResult> run(List<String> libraries) throws Exception {
		Files.createDirectories(this.workDirectory);
		Map<String, ScaleResult> results = new ConcurrentHashMap<>();
		Map<String, List<String>> byStore = libraries.stream()
			.collect(Collectors.groupingBy(Libraries::store, LinkedHashMap::new, Collectors.toList()));
		List<Thread> stores = new ArrayList<>();
		for (List<String> sameStore : byStore.values()) {
			Thread thread = new Thread(() -> sameStore.forEach((library) -> run(library, results)));
			thread.start();
			stores.add(thread);
		}
		for (Thread thread : stores) {
			thread.join();
		}
		return libraries.stream().filter(results::containsKey).map(results::get).toList();
	}

	private void run(String library, Map<String, ScaleResult> results) {
		logger.info("Scale: " + library + ", " + this.settings.scaleCycles() + " keys");
		Path result = this.workDirectory.resolve("scale-" + library + ".txt");
		ChildJvm child = null;
		try {
			Files.deleteIfExists(result);
			child = ChildJvm.start(ScaleWorker.class, this.endpoints,
					this.workDirectory.resolve("scale-" + library + ".log"),
					List.of(library, Integer.toString(this.settings.scaleCycles()), Integer.toString(THREADS),
							result.toString()));
			child.await(Duration.ofMinutes(10));
			results.put(library, ScaleResult.read(library, result));
		}
		catch (Exception ex) {
			logger.warn("Scale run of " + library + " failed: " + ex.getMessage());
		}
		finally {
			if (child != null) {
				child.destroy();
			}
		}
	}

}
