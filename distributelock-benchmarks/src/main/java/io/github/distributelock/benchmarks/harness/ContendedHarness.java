package io.github.distributelock.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.distributelock.benchmarks.library.Endpoints;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The contended runs, a plain Java harness rather than JMH because the hand-off latency
 * spans two threads (and, across JVMs, two processes): for each library, 4 threads in one
 * JVM, then 2 JVMs of 2 threads, all on one key, each JVM started fresh by
 * {@link ContendedWorker}. Every run is repeated in rounds, all libraries once per round,
 * and the run of median throughput is reported with the range of the rounds.
 */
public final class ContendedHarness {

	private static final Log logger = LogFactory.getLog(ContendedHarness.class);

	private static final int THREADS = 4;

	private static final int[] JVM_COUNTS = { 1, 2 };

	private final Endpoints endpoints;

	private final Settings settings;

	private final Path workDirectory;

	public ContendedHarness(Endpoints endpoints, Settings settings, Path workDirectory) {
		this.endpoints = endpoints;
		this.settings = settings;
		this.workDirectory = workDirectory;
	}

	public List<ContendedResult> run(List<String> libraries) throws Exception {
		Map<String, List<ContendedResult>> rounds = new LinkedHashMap<>();
		for (int round = 1; round <= this.settings.contendedRounds(); round++) {
			for (String library : libraries) {
				for (int jvms : JVM_COUNTS) {
					ContendedResult result = run(library, jvms, THREADS / jvms, round);
					rounds.computeIfAbsent(library + "-" + jvms, (name) -> new ArrayList<>()).add(result);
				}
			}
		}
		return rounds.values().stream().map(ContendedResult::median).toList();
	}

	private ContendedResult run(String library, int jvms, int threads, int round) throws Exception {
		String name = library + "-" + jvms + "x" + threads;
		logger.info("Contended: " + name + ", round " + round + " of " + this.settings.contendedRounds());
		Files.createDirectories(this.workDirectory);
		Path boardFile = this.workDirectory.resolve(name + ".board");
		Files.deleteIfExists(boardFile);
		SharedBoard board = SharedBoard.open(boardFile);
		String key = "contended." + name;
		List<ChildJvm> children = new ArrayList<>();
		List<Path> resultFiles = new ArrayList<>();
		try {
			for (int worker = 0; worker < jvms; worker++) {
				Path result = this.workDirectory.resolve(name + "-" + worker + ".txt");
				Files.deleteIfExists(result);
				resultFiles.add(result);
				children.add(ChildJvm.start(ContendedWorker.class, this.endpoints,
						this.workDirectory.resolve(name + "-" + worker + ".log"),
						List.of(library, key, Integer.toString(threads), boardFile.toString(), Integer.toString(worker),
								Long.toString(this.settings.contendedWarmup().toMillis()),
								Long.toString(this.settings.contendedMeasured().toMillis()), result.toString())));
			}
			awaitReady(board, jvms);
			board.start(System.nanoTime() + Duration.ofMillis(200).toNanos());
			Duration limit = this.settings.contendedWarmup()
				.plus(this.settings.contendedMeasured())
				.plus(Duration.ofSeconds(60));
			for (ChildJvm child : children) {
				child.await(limit);
			}
		}
		finally {
			children.forEach(ChildJvm::destroy);
		}
		return ContendedResult.of(library, jvms, threads, this.settings.contendedMeasured(), resultFiles);
	}

	private static void awaitReady(SharedBoard board, int jvms) throws InterruptedException {
		long giveUp = System.nanoTime() + Duration.ofSeconds(90).toNanos();
		for (int worker = 0; worker < jvms; worker++) {
			while (!board.isReady(worker)) {
				if (System.nanoTime() - giveUp > 0) {
					throw new IllegalStateException("Contended worker " + worker + " did not get ready");
				}
				// The board is a file mapped by other processes: nothing notifies
				// across JVMs, so it is polled, outside any measured window.
				Thread.sleep(10);
			}
		}
	}

}
