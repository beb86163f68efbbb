package io.github.distributelock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The scale runs: each library in a fresh JVM ({@link ScaleWorker}) locks and unlocks
 * many distinct keys on 4 threads, so that a per-key structure that is never freed shows
 * up in the store or in the heap.
 */
final class ScaleHarness {

	private static final Log logger = LogFactory.getLog(ScaleHarness.class);

	private static final int THREADS = 4;

	private final Endpoints endpoints;

	private final Settings settings;

	private final Path workDirectory;

	ScaleHarness(Endpoints endpoints, Settings settings, Path workDirectory) {
		this.endpoints = endpoints;
		this.settings = settings;
		this.workDirectory = workDirectory;
	}

	List<ScaleResult> run(List<String> libraries) throws Exception {
		Files.createDirectories(this.workDirectory);
		List<ScaleResult> results = new ArrayList<>();
		for (String library : libraries) {
			logger.info("Scale: " + library + ", " + this.settings.scaleCycles() + " keys");
			Path result = this.workDirectory.resolve("scale-" + library + ".txt");
			Files.deleteIfExists(result);
			ChildJvm child = ChildJvm.start(ScaleWorker.class, this.endpoints,
					this.workDirectory.resolve("scale-" + library + ".log"),
					List.of(library, Integer.toString(this.settings.scaleCycles()), Integer.toString(THREADS),
							result.toString()));
			try {
				child.await(Duration.ofMinutes(10));
				results.add(ScaleResult.read(library, result));
			}
			catch (Exception ex) {
				logger.warn("Scale run of " + library + " failed: " + ex.getMessage());
			}
			finally {
				child.destroy();
			}
		}
		return results;
	}

}
