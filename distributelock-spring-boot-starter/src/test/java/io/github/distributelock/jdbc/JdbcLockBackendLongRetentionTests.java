package io.github.distributelock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A released-row retention of centuries keeps every row on every database: H2 subtracts
 * milliseconds from a timestamp in nanoseconds and overflows past about 292 years, and
 * MariaDB, MySQL and PostgreSQL store no such time or interval.
 */
class JdbcLockBackendLongRetentionTests {

	private static final List<Duration> LONG_RETENTIONS = List.of(Duration.ofDays(365L * 1_000),
			Duration.ofDays(365L * 10_000), Duration.ofMillis(Long.MAX_VALUE));

	@OnEachDatabase
	void purgeWithARetentionOfCenturiesDeletesNoRow(JdbcTestDatabase database) throws Exception {
		for (Duration retention : LONG_RETENTIONS) {
			String key = "long-retention." + System.nanoTime();
			String released = key + ".released";
			try (HikariDataSource pool = database.newDataSource()) {
				JdbcLockBackend backend = new JdbcLockBackend(pool, JdbcLockBackend.DEFAULT_TABLE_NAME, null,
						Clock.systemUTC(), retention);
				try (DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
					lock.tryAcquire(released, Duration.ZERO, null).orElseThrow().close();
					try (LockHandle held = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
						backend.deleteReleasedRows();
						assertThat(database.isLocked(key))
							.as("held lock after a purge with a retention of %s", retention)
							.isTrue();
						assertThat(rows(database, released))
							.as("released row after a purge with a retention of %s", retention)
							.isOne();
					}
				}
			}
		}
	}

	private static int rows(JdbcTestDatabase database, String key) {
		Integer rows = database.jdbcTemplate()
			.queryForObject("SELECT COUNT(*) FROM distributelock WHERE lock_key = ?", Integer.class, key);
		return (rows != null) ? rows : 0;
	}

}
