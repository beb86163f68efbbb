package io.github.distributelock.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.benchmarks.library.Endpoints;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs {@link WaitersWorker} once per round, each time in a fresh JVM, with the load
 * average before and after, and keeps every round.
 */
public final class WaitersHarness {

	private static final Log logger = LogFactory.getLog(WaitersHarness.class);

	private final Endpoints endpoints;

	private final Settings settings;

	private final Path workDirectory;

	public WaitersHarness(Endpoints endpoints, Settings settings, Path workDirectory) {
		this.endpoints = endpoints;
		this.settings = settings;
		this.workDirectory = workDirectory;
	}

	public Measured<WaitersRound> run() throws Exception {
		Files.createDirectories(this.workDirectory);
		List<RoundLoad> loads = new ArrayList<>();
		List<WaitersRound> results = new ArrayList<>();
		for (int round = 1; round <= this.settings.rounds(); round++) {
			String atStart = LoadAverage.now().toString();
			Path result = this.workDirectory.resolve("waiters-" + round + ".json");
			Files.deleteIfExists(result);
			ChildJvm child = ChildJvm.start(WaitersWorker.class, this.endpoints,
					this.workDirectory.resolve("waiters-" + round + ".log"),
					List.of(Integer.toString(round), result.toString()));
			try {
				child.await(Duration.ofMinutes(5));
				String atEnd = LoadAverage.now().toString();
				for (WaitersRound one : JsonMapper.builder().build().readValue(result.toFile(), WaitersRound[].class)) {
					WaitersRound loaded = one.withLoad(atStart, atEnd);
					results.add(loaded);
					logger.info(String.format(
							"Waiters %s x %,d, round %d of %d: %d live threads while waiting (%d before, peak %d), "
									+ "heap +%,d KiB, served in %d ms, %d overlaps (load average %s before, %s after)",
							loaded.api(), loaded.waiters(), round, this.settings.rounds(), loaded.threadsWhileWaiting(),
							loaded.threadsBefore(), loaded.peakThreads(),
							(loaded.heapWhileWaitingBytes() - loaded.heapBeforeBytes()) / 1024, loaded.servedMillis(),
							loaded.overlaps(), atStart, atEnd));
				}
			}
			catch (Exception ex) {
				logger.warn("Waiters run, round " + round + " failed: " + ex.getMessage());
			}
			finally {
				child.destroy();
			}
			loads.add(new RoundLoad(round, atStart, LoadAverage.now().toString()));
		}
		return new Measured<>(loads, results);
	}

}
