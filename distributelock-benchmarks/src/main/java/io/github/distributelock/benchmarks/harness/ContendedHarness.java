package io.github.distributelock.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The contended runs, a plain Java harness rather than JMH because the hand-off latency
 * spans two threads (and, across JVMs, two processes): for each library, 4 threads in one
 * JVM, then 2 JVMs of 2 threads, all on one key, each JVM started fresh by
 * {@link ContendedWorker}. Every run is repeated in rounds, all libraries once per round,
 * and every round is kept, with the machine's load before and after each run.
 */
public final class ContendedHarness {

	private static final Log logger = LogFactory.getLog(ContendedHarness.class);

	/** The threads of every shape, over all its JVMs. */
	public static final int THREADS = 4;

	/** The JVM counts of the shapes: 1 JVM of 4 threads, 2 JVMs of 2 threads. */
	public static final List<Integer> JVM_COUNTS = List.of(1, 2);

	private final Endpoints endpoints;

	private final Settings settings;

	private final Path workDirectory;

	private final List<Integer> jvmCounts;

	/**
	 * Creates the harness.
	 * @param endpoints the servers
	 * @param settings the run's settings
	 * @param workDirectory where the JVMs' files go
	 * @param jvmCounts the shapes to run, by their JVM counts
	 */
	public ContendedHarness(Endpoints endpoints, Settings settings, Path workDirectory, List<Integer> jvmCounts) {
		this.endpoints = endpoints;
		this.settings = settings;
		this.workDirectory = workDirectory;
		this.jvmCounts = jvmCounts;
	}

	public Measured<ContendedResult> run(List<String> libraries) throws Exception {
		Map<String, List<ContendedRound>> runs = new LinkedHashMap<>();
		List<RoundLoad> loads = new ArrayList<>();
		for (int round = 1; round <= this.settings.rounds(); round++) {
			String atStart = LoadAverage.now().toString();
			for (String library : libraries) {
				for (int jvms : this.jvmCounts) {
					ContendedRound result = run(library, jvms, THREADS / jvms, round);
					runs.computeIfAbsent(library + " " + jvms, (name) -> new ArrayList<>()).add(result);
				}
			}
			loads.add(new RoundLoad(round, atStart, LoadAverage.now().toString()));
		}
		List<ContendedResult> results = new ArrayList<>();
		for (Map.Entry<String, List<ContendedRound>> entry : runs.entrySet()) {
			String[] name = entry.getKey().split(" ");
			int jvms = Integer.parseInt(name[1]);
			results.add(ContendedResult.of(name[0], jvms, THREADS / jvms, entry.getValue()));
		}
		return new Measured<>(loads, results);
	}

	private ContendedRound run(String library, int jvms, int threads, int round) throws Exception {
		String name = library + "-" + jvms + "x" + threads;
		Files.createDirectories(this.workDirectory);
		Path boardFile = this.workDirectory.resolve(name + ".board");
		Files.deleteIfExists(boardFile);
		SharedBoard board = SharedBoard.open(boardFile);
		String key = "contended." + name;
		List<ChildJvm> children = new ArrayList<>();
		List<Path> resultFiles = new ArrayList<>();
		String loadBefore = LoadAverage.now().toString();
		try {
			for (int worker = 0; worker < jvms; worker++) {
				Path result = this.workDirectory.resolve(name + "-" + worker + ".txt");
				Files.deleteIfExists(result);
				resultFiles.add(result);
				children.add(ChildJvm.start(ContendedWorker.class, this.endpoints,
						this.workDirectory.resolve(name + "-" + worker + ".log"),
						List.of(library, key, Integer.toString(threads), boardFile.toString(), Integer.toString(worker),
								Long.toString(this.settings.contendedWarmup().toMillis()),
								Long.toString(this.settings.contendedWarmupLimit().toMillis()),
								Long.toString(this.settings.contendedMeasured().toMillis()), result.toString())));
			}
			awaitReady(board, jvms);
			board.start(System.nanoTime() + Duration.ofMillis(200).toNanos());
			awaitWarm(board, jvms);
			long measureFrom = System.nanoTime() + Duration.ofMillis(100).toNanos();
			board.measureFrom(measureFrom);
			if (Libraries.store(library).equals("redis")) {
				logStoreCommands(name, round, measureFrom);
			}
			Duration limit = this.settings.contendedMeasured().plus(Duration.ofSeconds(60));
			for (ChildJvm child : children) {
				child.await(limit);
			}
		}
		finally {
			children.forEach(ChildJvm::destroy);
		}
		ContendedRound result = ContendedRound.read(round, this.settings.contendedMeasured(), resultFiles, loadBefore,
				LoadAverage.now().toString());
		logger.info(String.format(
				"Contended %s, round %d of %d: %,.0f acquisitions/s, hand-off p50 %.2f ms, "
						+ "%.0f us CPU per acquisition, after a warm-up of %.1f s%s (load average %s before, %s after)",
				name, round, this.settings.rounds(), result.acquisitionsPerSecond(), result.handOffP50Micros() / 1000,
				result.cpuMicrosPerAcquisition(), result.warmupMillis() / 1000.0,
				result.jitSettled() ? "" : " (JIT not settled)", loadBefore, result.loadAfter()));
		if (jvms > 1) {
			long[] across = ContendedRound.handOffsAcrossJvms(resultFiles);
			logger.info(String.format(
					"Contended %s, round %d: %,d of %,d hand-offs went to another JVM, p50 %.2f ms, p90 %.2f ms", name,
					round, across.length, result.handOffs(), Percentiles.of(across, 50) / 1e6,
					Percentiles.of(across, 90) / 1e6));
		}
		return result;
	}

	/**
	 * Logs the Redis commands per second of the measured window, from
	 * {@code INFO commandstats} at its start and end, to divide by the acquisitions per
	 * second: what a contended acquisition costs the store, failed attempts and
	 * {@code PUBLISH} included (commands run by scripts count as their own). The first
	 * count is taken once connected, which may be after the window started; the rate is
	 * over the part of the window between the two counts.
	 */
	private void logStoreCommands(String name, int round, long measureFrom) throws InterruptedException {
		long measureTo = measureFrom + this.settings.contendedMeasured().toNanos();
		RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", this.endpoints.redisPort()));
		try (StatefulRedisConnection<String, String> redis = client.connect()) {
			sleepUntil(measureFrom);
			long from = System.nanoTime();
			Map<String, Long> before = CommandCounter.commandStats(redis, "calls=");
			sleepUntil(measureTo);
			Map<String, Long> after = CommandCounter.commandStats(redis, "calls=");
			double seconds = (System.nanoTime() - from) / 1e9;
			if (measureTo - from < this.settings.contendedMeasured().toNanos() / 2) {
				logger.info("Contended " + name + ", round " + round
						+ ": Redis commands not counted, the client connected too late in the measured window");
				return;
			}
			String perSecond = after.entrySet()
				.stream()
				.filter((entry) -> !entry.getKey().equals("info"))
				.map((entry) -> Map.entry(entry.getKey(), entry.getValue() - before.getOrDefault(entry.getKey(), 0L)))
				.filter((entry) -> entry.getValue() > 0)
				.sorted(Map.Entry.<String, Long>comparingByValue().reversed())
				.map((entry) -> String.format("%s %,.0f", entry.getKey().toUpperCase(), entry.getValue() / seconds))
				.collect(Collectors.joining(", "));
			logger.info("Contended " + name + ", round " + round + ": Redis commands per second while measured: "
					+ perSecond);
		}
		finally {
			client.shutdown();
		}
	}

	/**
	 * Waits for a moment of the measured window: a time, not an event, so there is
	 * nothing to be notified of; the harness's own thread, outside the workers' JVMs.
	 */
	private static void sleepUntil(long nanos) throws InterruptedException {
		Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(nanos - System.nanoTime())));
	}

	private void awaitWarm(SharedBoard board, int jvms) throws InterruptedException {
		long giveUp = System.nanoTime() + this.settings.contendedWarmupLimit().plusSeconds(30).toNanos();
		for (int worker = 0; worker < jvms; worker++) {
			while (board.warmupMillis(worker) == 0) {
				if (System.nanoTime() - giveUp > 0) {
					throw new IllegalStateException("Contended worker " + worker + " did not finish its warm-up");
				}
				// The mark is written by another JVM into the shared memory-mapped board,
				// which has no notification: polled like the ready marks, before the
				// measured window, bounded by giveUp.
				Thread.sleep(10);
			}
		}
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
