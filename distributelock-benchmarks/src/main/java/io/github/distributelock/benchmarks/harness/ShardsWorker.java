package io.github.distributelock.benchmarks.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.ShardedJdbcLockBackend;

/**
 * One round of the JDBC shards row in its own JVM: 16 threads lock and unlock distinct
 * keys as fast as they can on one database (a {@link JdbcLockBackend}), then on two (a
 * {@link ShardedJdbcLockBackend} over the run's PostgreSQL and a second server), or in
 * the other order, each for the measured time after a warm-up of both until the JIT
 * compiler is idle. Every database gets a pool of 16 connections, so that no variant
 * waits for its pool. Started by {@link ShardsHarness}.
 * <p>
 * Arguments: second server's port, threads, least warm-up ms, most warm-up ms, measured
 * ms, whether the sharded variant goes first, result file.
 */
public final class ShardsWorker {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private ShardsWorker() {
	}

	public static void main(String[] args) throws Exception {
		int secondPort = Integer.parseInt(args[0]);
		int threads = Integer.parseInt(args[1]);
		Duration leastWarmup = Duration.ofMillis(Long.parseLong(args[2]));
		Duration mostWarmup = Duration.ofMillis(Long.parseLong(args[3]));
		long measured = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
		boolean shardedFirst = Boolean.parseBoolean(args[5]);
		Path result = Path.of(args[6]);
		Endpoints endpoints = Endpoints.fromSystemProperties();
		String run = Long.toString(System.nanoTime(), 36);
		try (HikariDataSource single = pool(endpoints.jdbcUrl(), threads);
				HikariDataSource first = pool(endpoints.jdbcUrl(), threads);
				HikariDataSource second = pool("jdbc:postgresql://127.0.0.1:" + secondPort + "/postgres", threads);
				DefaultDistributeLock oneDatabase = new DefaultDistributeLock(backend(single, "bench_one_shard"));
				DefaultDistributeLock twoDatabases = new DefaultDistributeLock(ShardedJdbcLockBackend.builder()
					.shard("first", backend(first, "bench_two_shards"))
					.shard("second", backend(second, "bench_two_shards"))
					.createSchema(true)
					.build())) {
			((JdbcLockBackend) oneDatabase.backend()).createSchema();
			long warmup = warmUp(oneDatabase, twoDatabases, threads, run, leastWarmup, mostWarmup);
			double one;
			double two;
			if (shardedFirst) {
				two = measure(twoDatabases, threads, "two." + run, measured);
				one = measure(oneDatabase, threads, "one." + run, measured);
			}
			else {
				one = measure(oneDatabase, threads, "one." + run, measured);
				two = measure(twoDatabases, threads, "two." + run, measured);
			}
			Files.writeString(result, one + " " + two + " " + warmup);
		}
		System.exit(0);
	}

	private static JdbcLockBackend backend(HikariDataSource pool, String table) {
		return new JdbcLockBackend(pool, table, null, Clock.systemUTC(),
				JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION);
	}

	private static HikariDataSource pool(String url, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(url);
		config.setUsername("postgres");
		config.setMaximumPoolSize(size);
		return new HikariDataSource(config);
	}

	/** Runs both variants, half the threads each, until the JIT compiler is idle. */
	private static long warmUp(DefaultDistributeLock one, DefaultDistributeLock two, int threads, String run,
			Duration least, Duration most) throws Exception {
		AtomicBoolean stop = new AtomicBoolean();
		AtomicReference<Exception> failure = new AtomicReference<>();
		List<Thread> running = new ArrayList<>();
		running.addAll(start(one, threads / 2, "warm-one." + run, stop, new AtomicLong(), failure));
		running.addAll(start(two, threads / 2, "warm-two." + run, stop, new AtomicLong(), failure));
		long warmup = JitWarmup.await(least, most);
		stop.set(true);
		join(running, failure);
		return warmup;
	}

	/** Acquisitions per second of {@code threads} threads on distinct keys. */
	private static double measure(DefaultDistributeLock lock, int threads, String prefix, long measuredNanos)
			throws Exception {
		AtomicBoolean stop = new AtomicBoolean();
		AtomicLong acquisitions = new AtomicLong();
		AtomicReference<Exception> failure = new AtomicReference<>();
		long start = System.nanoTime();
		List<Thread> running = start(lock, threads, prefix, stop, acquisitions, failure);
		// The measuring thread only waits; the workers count.
		Thread.sleep(TimeUnit.NANOSECONDS.toMillis(measuredNanos));
		stop.set(true);
		long elapsed = System.nanoTime() - start;
		join(running, failure);
		return acquisitions.get() / (elapsed / 1e9);
	}

	private static List<Thread> start(DefaultDistributeLock lock, int threads, String prefix, AtomicBoolean stop,
			AtomicLong acquisitions, AtomicReference<Exception> failure) {
		List<Thread> running = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			String keys = prefix + "." + t + ".";
			Thread thread = new Thread(() -> {
				try {
					for (long i = 0; !stop.get(); i++) {
						try (LockHandle handle = lock.tryAcquire(keys + i, WAIT, null).orElseThrow()) {
							acquisitions.incrementAndGet();
						}
					}
				}
				catch (Exception ex) {
					failure.compareAndSet(null, ex);
				}
			});
			thread.start();
			running.add(thread);
		}
		return running;
	}

	private static void join(List<Thread> running, AtomicReference<Exception> failure) throws Exception {
		for (Thread thread : running) {
			thread.join(TimeUnit.MINUTES.toMillis(2));
		}
		if (failure.get() != null) {
			throw failure.get();
		}
	}

}
