package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys full of SQL syntax and unicode are stored and released exactly as given, and keys
 * that differ only in case, accents or trailing spaces are different locks.
 */
class JdbcLockBackendOddKeyTests {

	private static final List<String> ODD_KEYS = List.of("it's a \"quoted\" key", "x'; DROP TABLE distributelock; --",
			"a -- comment /* and */ ; two; statements", ":key ?owner ${table} %_ \\back\\slash",
			"\u540d\u524d:\u043a\u043b\u044e\u0447:\ud83d\udd12", "Case", "case", "trailing ", "trailing", "\u00e9",
			"e\u0301");

	private static JdbcTestDatabases databases;

	@BeforeAll
	static void startDatabases() {
		databases = JdbcTestDatabases.startAll();
	}

	@AfterAll
	static void stopDatabases() throws Exception {
		if (databases != null) {
			databases.close();
		}
	}

	@ParameterizedTest
	@FieldSource("io.github.distributelock.jdbc.JdbcTestDatabase#DIALECTS")
	void oddKeysAreStoredAndReleasedAsGiven(String dialect) throws Exception {
		JdbcTestDatabase database = databases.get(dialect);
		JdbcTemplate store = database.jdbcTemplate();
		String prefix = "odd." + System.nanoTime() + ".";
		try (HikariDataSource dataSource = database.newDataSource();
				DefaultDistributeLock lock = new DefaultDistributeLock(new JdbcLockBackend(dataSource))) {
			List<LockHandle> handles = new ArrayList<>();
			for (String odd : ODD_KEYS) {
				String key = prefix + odd;
				// All held at once: none of them is mistaken for another.
				handles.add(lock.tryAcquire(key, Duration.ZERO, null).orElseThrow());
				assertThat(database.isLocked(key)).isTrue();
				String owner = store.queryForObject("SELECT owner FROM distributelock WHERE lock_key = ?", String.class,
						key);
				assertThat(store.queryForObject("SELECT lock_key FROM distributelock WHERE owner = ?", String.class,
						owner))
					.isEqualTo(key);
			}
			for (LockHandle handle : handles) {
				handle.close();
				assertThat(database.isLocked(handle.key())).isFalse();
			}
		}
		assertThat(store.queryForObject("SELECT COUNT(*) FROM distributelock WHERE lock_key LIKE ?", Integer.class,
				prefix + "%"))
			.isZero();
	}

}
