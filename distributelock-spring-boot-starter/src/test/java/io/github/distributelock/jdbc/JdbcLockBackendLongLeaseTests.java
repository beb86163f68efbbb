package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fixed lease of centuries, or of "for ever", holds the lock on every database: H2 adds
 * milliseconds to a timestamp in nanoseconds and overflows past about 292 years (into a
 * wrong expiry, often one already past, so the lock was free while its caller held it),
 * MariaDB and MySQL cannot store a time after the year 9999, and PostgreSQL no interval
 * of {@code Long.MAX_VALUE} milliseconds.
 */
class JdbcLockBackendLongLeaseTests {

	private static final List<Duration> LONG_LEASES = List.of(Duration.ofDays(365L * 1_000),
			Duration.ofDays(365L * 10_000), Duration.ofMillis(Long.MAX_VALUE));

	private static final List<String> KINDS = List.of("exclusive", "fair", "read", "write", "permits");

	@OnEachDatabase
	void lockWithALeaseOfCenturiesIsHeldInTheTableUntilItIsReleased(JdbcTestDatabase database) throws Exception {
		try (HikariDataSource holderPool = database.newDataSource();
				DefaultDistributeLock holder = new DefaultDistributeLock(new JdbcLockBackend(holderPool));
				HikariDataSource otherPool = database.newDataSource();
				DefaultDistributeLock other = new DefaultDistributeLock(new JdbcLockBackend(otherPool))) {
			for (Duration lease : LONG_LEASES) {
				for (String kind : KINDS) {
					String key = "long-lease." + kind + "." + System.nanoTime();
					try (LockHandle held = holder.tryAcquire(request(kind, key).withLeaseTime(lease)).orElseThrow()) {
						assertThat(database.isLocked(key)).as("%s lock with a lease of %s", kind, lease).isTrue();
						assertThat(other.tryAcquire(key, Duration.ZERO, null))
							.as("%s lock with a lease of %s", kind, lease)
							.isEmpty();
						assertThat(held.isHeld()).isTrue();
					}
					assertThat(database.isLocked(key)).isFalse();
					assertThat(other.tryAcquire(key, Duration.ofSeconds(10), null))
						.hasValueSatisfying(LockHandle::close);
				}
			}
		}
	}

	/** A request of one of {@link #KINDS} for {@code key}. */
	static LockRequest request(String kind, String key) {
		LockRequest request = LockRequest.of(key);
		return switch (kind) {
			case "exclusive" -> request;
			case "fair" -> request.withFair(true);
			case "read" -> request.withMode(LockMode.READ);
			case "write" -> request.withMode(LockMode.WRITE);
			case "permits" -> request.withPermits(2);
			default -> throw new IllegalArgumentException(kind);
		};
	}

}
