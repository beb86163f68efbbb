package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The longest key and owner the backend accepts, of characters outside the Basic
 * Multilingual Plane (emoji, which take 4 bytes in UTF-8 and two UTF-16 units), lock
 * every kind on every database: H2 counts a column's length in UTF-16 units, so its
 * {@code VARCHAR(512)} refused a key of 257 such characters that the backend had let
 * through.
 */
class JdbcLockBackendLongestKeyTests {

	private static final String LONGEST_KEY = "\uD83D\uDD12".repeat(JdbcLockBackend.MAX_KEY_LENGTH);

	private static final String LONGEST_OWNER = "\uD83D\uDD11".repeat(JdbcLockBackend.MAX_OWNER_LENGTH);

	private static final List<String> KINDS = List.of("exclusive", "fair", "read", "write", "permits");

	@OnEachDatabase
	void longestKeyAndOwnerOfFourByteCharactersLockEveryKind(JdbcTestDatabase database) throws Exception {
		try (HikariDataSource pool = database.newDataSource();
				DefaultDistributeLock lock = new DefaultDistributeLock(new JdbcLockBackend(pool))) {
			for (String kind : KINDS) {
				for (LockRequest request : List.of(request(kind), request(kind).withOwner(LONGEST_OWNER))) {
					try (LockHandle held = lock.tryAcquire(request).orElseThrow()) {
						assertThat(database.isLocked(LONGEST_KEY)).as("%s lock", kind).isTrue();
						assertThat(held.isHeld()).isTrue();
					}
					assertThat(database.isLocked(LONGEST_KEY)).as("%s lock released", kind).isFalse();
				}
			}
		}
	}

	private static LockRequest request(String kind) {
		return JdbcLockBackendLongLeaseTests.request(kind, LONGEST_KEY).withWaitTime(Duration.ZERO);
	}

}
