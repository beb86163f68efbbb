package io.github.distributelock.jdbc;

import java.sql.Timestamp;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The key's row of readers, a writer or permit holders lasts exactly as long as the
 * longest lease of their own rows, read from the store after each attempt. Ending sooner,
 * it left the key free to any attempt while a holder's row still ran (an attempt whose
 * client stalled between its two writes, on the databases that read the clock anew for
 * each statement); ending later, the release of a holder without the longest lease shrank
 * it and notified plain waiters of a change no holder made.
 */
class JdbcKindKeyRowLeaseTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	@OnEachDatabase
	void theKeysRowOfReadersLastsAsLongAsTheLongestReader(JdbcTestDatabase database) throws Exception {
		assertTheKeysRowLastsAsLongAsTheLongestHolder(database, LockKind.READ, TABLE + "_h");
	}

	@OnEachDatabase
	void theKeysRowOfAWriterLastsAsLongAsTheWriter(JdbcTestDatabase database) throws Exception {
		String key = "key-row-lease.write." + System.nanoTime();
		try (HikariDataSource data = database.newDataSource(); JdbcLockBackend backend = new JdbcLockBackend(data)) {
			assertThat(Backends
				.join(backend.tryAcquire(new Claim(key, "writer", null, LockKind.WRITE), Duration.ofSeconds(30)))
				.acquired()).isTrue();
			assertTheKeysRowLastsAsLongAsItsLongestHolder(database, key, TABLE + "_h");
		}
	}

	@OnEachDatabase
	void theKeysRowOfPermitHoldersLastsAsLongAsTheLongestHolder(JdbcTestDatabase database) throws Exception {
		assertTheKeysRowLastsAsLongAsTheLongestHolder(database, LockKind.permits(2), TABLE + "_p");
	}

	/** A holder that takes the key, then one with a longer lease that joins it. */
	private void assertTheKeysRowLastsAsLongAsTheLongestHolder(JdbcTestDatabase database, LockKind kind,
			String holderTable) throws Exception {
		String key = "key-row-lease." + kind.tag() + "." + System.nanoTime();
		try (HikariDataSource data = database.newDataSource(); JdbcLockBackend backend = new JdbcLockBackend(data)) {
			assertThat(Backends.join(backend.tryAcquire(new Claim(key, "first", null, kind), Duration.ofSeconds(30)))
				.acquired()).isTrue();
			assertTheKeysRowLastsAsLongAsItsLongestHolder(database, key, holderTable);
			assertThat(Backends.join(backend.tryAcquire(new Claim(key, "second", null, kind), Duration.ofSeconds(60)))
				.acquired()).isTrue();
			assertTheKeysRowLastsAsLongAsItsLongestHolder(database, key, holderTable);
		}
	}

	private static void assertTheKeysRowLastsAsLongAsItsLongestHolder(JdbcTestDatabase database, String key,
			String holderTable) {
		Timestamp keysRow = database.jdbcTemplate()
			.queryForObject("SELECT expires_at FROM " + TABLE + " WHERE lock_key = ?", Timestamp.class, key);
		Timestamp longestHolder = database.jdbcTemplate()
			.queryForObject("SELECT MAX(expires_at) FROM " + holderTable + " WHERE lock_key = ?", Timestamp.class, key);
		assertThat(longestHolder).as("the longest lease of the holders' rows").isNotNull();
		assertThat(keysRow).as("the lease of the key's row").isEqualTo(longestHolder);
	}

}
