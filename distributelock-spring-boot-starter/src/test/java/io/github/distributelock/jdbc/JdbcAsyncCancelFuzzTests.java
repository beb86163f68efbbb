package io.github.distributelock.jdbc;

import java.time.Clock;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.AbstractAsyncCancelFuzzTests;
import io.github.distributelock.core.LockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Non-blocking calls ended by their callers ({@link AbstractAsyncCancelFuzzTests}) on H2,
 * read back from the lock table and the queue, holder and permit tables beside it; the
 * statements run on the backend's pool, so the ends land between them too.
 */
class JdbcAsyncCancelFuzzTests extends AbstractAsyncCancelFuzzTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("h2");

	private static JdbcTestDatabase database() {
		return databases.get("h2");
	}

	@Override
	protected LockBackend newBackend() {
		// Closed after the backend, which is registered later.
		HikariDataSource dataSource = closeAfterTest(database().newDataSource());
		return new JdbcLockBackend(dataSource, TABLE, null, Clock.systemUTC(),
				JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION, true);
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return !leftInStore(List.of(key)).isEmpty();
	}

	/** The keys with a live row in any of the four tables. */
	@Override
	protected List<String> leftInStore(List<String> keys) {
		String now = database().now();
		return keys.stream().filter((key) -> {
			Integer rows = database().jdbcTemplate()
				.queryForObject("SELECT (SELECT COUNT(*) FROM " + TABLE + " WHERE lock_key = ? AND expires_at > " + now
						+ ") + (SELECT COUNT(*) FROM " + TABLE + "_q WHERE lock_key = ? AND expires_at > " + now
						+ ") + (SELECT COUNT(*) FROM " + TABLE + "_h WHERE lock_key = ? AND expires_at > " + now
						+ ") + (SELECT COUNT(*) FROM " + TABLE + "_p WHERE lock_key = ? AND expires_at > " + now + ")",
						Integer.class, key, key, key, key);
			return rows != null && rows > 0;
		}).toList();
	}

}
