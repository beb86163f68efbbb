package io.github.distributelock.jdbc;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On MariaDB and MySQL the purge deletes released rows in batches of
 * {@link ReleasedRowPurge#BATCH}: a backlog of several batches, in the lock table and the
 * holder table, is deleted by one purge, keys that sort as bytes do included, and the
 * rows of held locks stay.
 */
class JdbcPurgeBatchesTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	@ParameterizedTest
	@ValueSource(strings = { "mariadb", "mysql" })
	void aBacklogOfSeveralBatchesIsDeletedAndHeldLocksStay(String dialect) {
		JdbcTestDatabase database = databases.get(dialect);
		String table = "purge_batches_" + dialect;
		int backlog = 2 * ReleasedRowPurge.BATCH + 7;
		Claim plain = new Claim("purge-batches.held", "holder");
		Claim reader = new Claim("purge-batches.reader", "reader", null, LockKind.READ);
		try (HikariDataSource pool = database.newDataSource();
				JdbcLockBackend backend = new JdbcLockBackend(pool, table, null, Clock.systemUTC())) {
			backend.createSchema();
			JdbcTemplate jdbc = new JdbcTemplate(pool);
			jdbc.update("DELETE FROM " + table);
			jdbc.update("DELETE FROM " + table + "_h");
			Timestamp longAgo = Timestamp.from(Instant.now().minus(Duration.ofDays(2)));
			List<Object[]> rows = new ArrayList<>();
			for (int i = 0; i < backlog; i++) {
				// Keys past ASCII and with trailing spaces, which only a binary key keeps
				// apart from their neighbours.
				rows.add(new Object[] { "purge-batches.gone." + i + ((i % 3 == 0) ? " \u00e9" : " "), longAgo,
						longAgo });
			}
			jdbc.batchUpdate("INSERT INTO " + table + " (lock_key, owner, fencing_token, expires_at, acquired_at) "
					+ "VALUES (?, 'gone', 0, ?, ?)", rows);
			jdbc.batchUpdate("INSERT INTO " + table + "_h (lock_key, owner, kind, fencing_token, expires_at, "
					+ "acquired_at) VALUES (?, 'gone', 'READ', 0, ?, ?)", rows);
			assertThat(Backends.join(backend.tryAcquire(plain, Duration.ofMinutes(1))).acquired()).isTrue();
			assertThat(Backends.join(backend.tryAcquire(reader, Duration.ofMinutes(1))).acquired()).isTrue();

			assertThat(backend.deleteReleasedRows()).isEqualTo(2 * backlog);

			assertThat(jdbc.queryForList("SELECT lock_key FROM " + table, String.class))
				.containsExactlyInAnyOrder(plain.key(), reader.key());
			assertThat(jdbc.queryForList("SELECT lock_key FROM " + table + "_h", String.class))
				.containsExactly(reader.key());
			assertThat(Backends.join(backend.renew(plain, Duration.ofMinutes(1)))).isTrue();
			assertThat(Backends.join(backend.renew(reader, Duration.ofMinutes(1)))).isTrue();
		}
	}

}
