package io.github.distributelock.jdbc;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend.Claim;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Plain attempts without a wait on free keys whose rows the purge of released rows is
 * deleting take their keys: on MySQL two such attempts on neighbouring keys wait for the
 * rows the purge deletes, inherit the gap locks of those rows when it commits, and then
 * deadlock each other as both insert into that gap. The attempt that loses is made again,
 * as the other kinds' attempts are, instead of reporting the free key as held.
 */
class JdbcPurgeRacingPlainAttemptTests {

	private static final int THREADS = 8;

	private static final int KEYS = 400;

	private static final int ROUNDS = 15;

	@OnEachDatabase
	void plainAttemptsOnFreeKeysThePurgeDeletesAreNeverRefused(JdbcTestDatabase database) throws Exception {
		String table = "purge_racing_plain";
		ExecutorService threads = Executors.newFixedThreadPool(THREADS + 1);
		AtomicInteger refused = new AtomicInteger();
		try (HikariDataSource pool = database.newDataSource((config) -> config.setMaximumPoolSize(THREADS + 1));
				JdbcLockBackend backend = new JdbcLockBackend(pool, table, null, Clock.systemUTC(),
						Duration.ofMinutes(1))) {
			backend.createSchema();
			JdbcTemplate jdbc = new JdbcTemplate(pool);
			// Free for a day, whatever the session's time zone: every row is the purge's.
			Timestamp longAgo = Timestamp.from(Instant.now().minus(Duration.ofDays(2)));
			for (int round = 0; round < ROUNDS; round++) {
				String prefix = "purge-racing." + System.nanoTime() + ".";
				List<Object[]> rows = new ArrayList<>();
				for (int i = 0; i < KEYS; i++) {
					rows.add(new Object[] { prefix + i, longAgo, longAgo });
				}
				jdbc.batchUpdate("INSERT INTO " + table + " (lock_key, owner, fencing_token, expires_at, acquired_at) "
						+ "VALUES (?, 'gone', 0, ?, ?)", rows);
				CountDownLatch go = new CountDownLatch(1);
				List<Future<?>> work = new ArrayList<>();
				work.add(threads.submit(() -> {
					go.await();
					return backend.deleteReleasedRows();
				}));
				for (int t = 0; t < THREADS; t++) {
					int first = t;
					work.add(threads.submit(() -> {
						go.await();
						for (int i = first; i < KEYS; i += THREADS) {
							Claim claim = new Claim(prefix + i, "owner-" + first);
							if (!Backends.join(backend.tryAcquire(claim, Duration.ofSeconds(30))).acquired()) {
								refused.incrementAndGet();
							}
						}
						return null;
					}));
				}
				go.countDown();
				for (Future<?> done : work) {
					done.get(60, TimeUnit.SECONDS);
				}
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(refused).as("attempts refused on free keys nobody else asked for").hasValue(0);
	}

}
