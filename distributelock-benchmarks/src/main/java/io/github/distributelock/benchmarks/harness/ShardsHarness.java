package io.github.distributelock.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The JDBC shards row: throughput of 16 threads on distinct keys with the lock table in
 * one PostgreSQL database and spread over two, in the same run. Starts a second
 * PostgreSQL server beside the run's (configured alike), then runs each round in a fresh
 * JVM ({@link ShardsWorker}) that measures both variants, the first of them alternating
 * from round to round.
 */
public final class ShardsHarness {

	private static final Log logger = LogFactory.getLog(ShardsHarness.class);

	static final int THREADS = 16;

	private final Endpoints endpoints;

	private final Settings settings;

	private final Path workDirectory;

	public ShardsHarness(Endpoints endpoints, Settings settings, Path workDirectory) {
		this.endpoints = endpoints;
		this.settings = settings;
		this.workDirectory = workDirectory;
	}

	public Measured<ShardsResult> run() throws Exception {
		Files.createDirectories(this.workDirectory);
		List<RoundLoad> loads = new ArrayList<>();
		List<ShardsResult.Round> rounds = new ArrayList<>();
		try (EmbeddedPostgres second = EmbeddedPostgres.builder()
			.setServerConfig("listen_addresses", "127.0.0.1")
			.setServerConfig("synchronous_commit", "on")
			.start()) {
			for (int round = 1; round <= this.settings.rounds(); round++) {
				String atStart = LoadAverage.now().toString();
				rounds.add(run(second.getPort(), round, atStart));
				loads.add(new RoundLoad(round, atStart, LoadAverage.now().toString()));
			}
		}
		return new Measured<>(loads, List.of(ShardsResult.of(THREADS, rounds)));
	}

	private ShardsResult.Round run(int secondPort, int round, String loadBefore) throws Exception {
		Path result = this.workDirectory.resolve("shards-" + round + ".txt");
		Files.deleteIfExists(result);
		boolean shardedFirst = round % 2 == 0;
		ChildJvm child = ChildJvm.start(ShardsWorker.class, this.endpoints,
				this.workDirectory.resolve("shards-" + round + ".log"),
				List.of(Integer.toString(secondPort), Integer.toString(THREADS),
						Long.toString(this.settings.contendedWarmup().toMillis()),
						Long.toString(this.settings.contendedWarmupLimit().toMillis()),
						Long.toString(this.settings.contendedMeasured().toMillis()), Boolean.toString(shardedFirst),
						result.toString()));
		try {
			child.await(this.settings.contendedWarmupLimit()
				.plus(this.settings.contendedMeasured().multipliedBy(2))
				.plus(Duration.ofMinutes(2)));
		}
		finally {
			child.destroy();
		}
		double[] figures = Arrays.stream(Files.readString(result).trim().split(" "))
			.mapToDouble(Double::parseDouble)
			.toArray();
		ShardsResult.Round measured = new ShardsResult.Round(round, figures[0], figures[1], shardedFirst,
				(long) figures[2], loadBefore, LoadAverage.now().toString());
		logger.info(String.format(
				"JDBC shards, round %d of %d: %,.0f acquisitions/s on one database, %,.0f on two (%s first), "
						+ "%d threads on distinct keys, after a warm-up of %.1f s (load average %s before, %s after)",
				round, this.settings.rounds(), measured.oneDatabasePerSecond(), measured.twoDatabasesPerSecond(),
				shardedFirst ? "two" : "one", THREADS, Math.abs(measured.warmupMillis()) / 1000.0, loadBefore,
				measured.loadAfter()));
		return measured;
	}

}
