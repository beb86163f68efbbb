package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.Optional;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.DefaultDistributeLock;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder that dies without releasing (its lease no longer renewed) is taken over once
 * its lease has run out on the database clock, and not before.
 */
class JdbcLockBackendDeadHolderTests {

	/** Long enough that a loaded machine does not outlast it between two statements. */
	private static final Duration LEASE = Duration.ofSeconds(3);

	@OnEachDatabase
	void deadHoldersLockIsTakenOverAfterItsLeaseRunsOutAndOnlyThen(JdbcTestDatabase database) throws Exception {
		JdbcTemplate store = database.jdbcTemplate();
		String key = "dead-holder." + System.nanoTime();
		long deadToken;
		try (HikariDataSource deadInstance = database.newDataSource()) {
			AcquireResult taken = Backends.tryAcquire(new JdbcLockBackend(deadInstance), key, "dead-owner", LEASE);
			assertThat(taken.acquired()).isTrue();
			deadToken = taken.fencingToken();
		}
		// The holder is gone: its connections are closed and nothing renews its lease.
		Object deadExpiry = store.queryForObject("SELECT expires_at FROM distributelock WHERE lock_key = ?",
				Object.class, key);
		assertThat(database.isLocked(key)).isTrue();
		try (HikariDataSource waiterInstance = database.newDataSource();
				DefaultDistributeLock waiter = new DefaultDistributeLock(new JdbcLockBackend(waiterInstance))) {
			AcquireResult refused = Backends.tryAcquire(waiter.backend(), key, "early", Duration.ofSeconds(30));
			assertThat(refused.acquired()).isFalse();
			assertThat(refused.holderLeaseRemaining()).isPositive().isLessThanOrEqualTo(LEASE);
			assertThat(database.isLocked(key)).isTrue();
			Optional<LockHandle> handle = waiter.tryAcquire(key, Duration.ofSeconds(20), null);
			assertThat(handle).isPresent();
			try (LockHandle held = handle.get()) {
				Boolean takenAfterExpiry = store.queryForObject(
						"SELECT acquired_at >= ? FROM distributelock WHERE lock_key = ?", Boolean.class, deadExpiry,
						key);
				assertThat(takenAfterExpiry).isTrue();
				assertThat(held.fencingToken()).isGreaterThan(deadToken);
				assertThat(Backends.renew(waiter.backend(), key, "dead-owner", Duration.ofSeconds(30))).isFalse();
				assertThat(Backends.release(waiter.backend(), key, "dead-owner")).isFalse();
				assertThat(held.isHeld()).isTrue();
				assertThat(database.isLocked(key)).isTrue();
			}
		}
		assertThat(database.isLocked(key)).isFalse();
	}

}
