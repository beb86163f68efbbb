package io.github.distributelock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances whose clocks are minutes apart, and whose database sessions are in time
 * zones a day apart, still exclude each other, and leases run for as long as asked: only
 * the database clock counts.
 */
@ExtendWith(OutputCaptureExtension.class)
class JdbcLockBackendSkewedClockTests {

	private static final Duration SKEW = Duration.ofMinutes(7);

	/** Long enough that a loaded machine does not outlast it between two statements. */
	private static final Duration LEASE = Duration.ofSeconds(3);

	@OnEachDatabase
	void instancesWithSkewedClocksAndTimeZonesStillExcludeEachOtherForTheWholeLease(JdbcTestDatabase database,
			CapturedOutput output) throws Exception {
		String key = "skewed-clock." + System.nanoTime();
		try (HikariDataSource aheadSource = database
			.newDataSource((config) -> config.setConnectionInitSql(database.setTimeZone("+13:00")));
				HikariDataSource behindSource = database
					.newDataSource((config) -> config.setConnectionInitSql(database.setTimeZone("-12:00")))) {
			JdbcLockBackend aheadBackend = new JdbcLockBackend(aheadSource, "distributelock", null,
					Clock.offset(Clock.systemUTC(), SKEW));
			JdbcLockBackend behindBackend = new JdbcLockBackend(behindSource, "distributelock", null,
					Clock.offset(Clock.systemUTC(), SKEW.negated()));
			assertThat(output).contains("ahead of the database clock").contains("behind the database clock");
			try (DefaultDistributeLock ahead = new DefaultDistributeLock(aheadBackend);
					DefaultDistributeLock behind = new DefaultDistributeLock(behindBackend, Duration.ofMillis(600),
							false, LockEventListener.NONE, null)) {
				// A fixed lease taken by the instance whose clock is ahead.
				LockHandle aheadHandle = ahead.tryAcquire(key, Duration.ZERO, LEASE).orElseThrow();
				Object aheadExpiry = database.jdbcTemplate()
					.queryForObject("SELECT expires_at FROM distributelock WHERE lock_key = ?", Object.class, key);
				AcquireResult refused = Backends.tryAcquire(behindBackend, key, "behind", Duration.ofSeconds(30));
				assertThat(refused.acquired()).isFalse();
				assertThat(refused.holderLeaseRemaining()).isPositive().isLessThanOrEqualTo(LEASE);
				Optional<LockHandle> behindHandle = behind.tryAcquire(key, Duration.ofSeconds(20), null);
				assertThat(behindHandle).isPresent();
				Boolean afterTheLease = database.jdbcTemplate()
					.queryForObject("SELECT acquired_at >= ? FROM distributelock WHERE lock_key = ?", Boolean.class,
							aheadExpiry, key);
				assertThat(afterTheLease).isTrue();
				aheadHandle.close();
				// The watchdog of the instance whose clock is behind keeps a 600 ms
				// lease.
				try (LockHandle held = behindHandle.get()) {
					await().during(Duration.ofMillis(1500))
						.atMost(Duration.ofSeconds(5))
						.pollInterval(Duration.ofMillis(100))
						.until(() -> held.isHeld() && database.isLocked(key)
								&& ahead.tryAcquire(key, Duration.ZERO, null).isEmpty());
				}
				assertThat(database.isLocked(key)).isFalse();
				assertThat(behind.lostLockCount()).isZero();
			}
		}
	}

}
