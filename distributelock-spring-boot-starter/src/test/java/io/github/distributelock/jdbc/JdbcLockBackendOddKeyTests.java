package io.github.distributelock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Keys full of SQL syntax and unicode are stored and released exactly as given, and keys
 * that differ only in case, accents or trailing spaces are different locks.
 */
class JdbcLockBackendOddKeyTests {

	private static final List<String> ODD_KEYS = List.of("it's a \"quoted\" key", "x'; DROP TABLE distributelock; --",
			"a -- comment /* and */ ; two; statements", ":key ?owner ${table} %_ \\back\\slash",
			"\u540d\u524d:\u043a\u043b\u044e\u0447:\ud83d\udd12", "Case", "case", "trailing ", "trailing", "\u00e9",
			"e\u0301", "..", "line\nbreak");

	@OnEachDatabase
	void oddKeysAreStoredAndReleasedAsGiven(JdbcTestDatabase database) throws Exception {
		JdbcTemplate store = database.jdbcTemplate();
		String prefix = "odd." + System.nanoTime() + ".";
		try (HikariDataSource dataSource = database.newDataSource()) {
			// Released rows are deleted at once, to show that the odd keys go with them.
			JdbcLockBackend backend = new JdbcLockBackend(dataSource, JdbcLockBackend.DEFAULT_TABLE_NAME, null,
					Clock.systemUTC(), Duration.ofMillis(1));
			try (DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
				holdAndRelease(lock, database, store, prefix);
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				backend.deleteReleasedRows();
				return rowCount(store, prefix) == 0;
			});
		}
		assertThat(rowCount(store, prefix)).isZero();
	}

	private static void holdAndRelease(DefaultDistributeLock lock, JdbcTestDatabase database, JdbcTemplate store,
			String prefix) throws InterruptedException {
		List<LockHandle> handles = new ArrayList<>();
		for (String odd : ODD_KEYS) {
			String key = prefix + odd;
			// All held at once: none of them is mistaken for another.
			handles.add(lock.tryAcquire(key, Duration.ZERO, null).orElseThrow());
			assertThat(database.isLocked(key)).isTrue();
			String owner = store.queryForObject("SELECT owner FROM distributelock WHERE lock_key = ?", String.class,
					key);
			assertThat(store.queryForObject("SELECT lock_key FROM distributelock WHERE owner = ?", String.class, owner))
				.isEqualTo(key);
		}
		for (LockHandle handle : handles) {
			handle.close();
			assertThat(database.isLocked(handle.key())).isFalse();
		}
	}

	private static int rowCount(JdbcTemplate store, String prefix) {
		Integer rows = store.queryForObject("SELECT COUNT(*) FROM distributelock WHERE lock_key LIKE ?", Integer.class,
				prefix + "%");
		return (rows != null) ? rows : 0;
	}

}
