package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.VirtualThreadContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;

import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The JDBC contract ({@link AbstractJdbcLockBackendContractTests}) on each database, each
 * started once for the whole test run, and on PostgreSQL with every concurrent caller on
 * a virtual thread, blocking in the driver's socket reads and in the pool.
 */
class JdbcLockBackendContractTests {

	@Nested
	class OnH2 extends AbstractJdbcLockBackendContractTests {

		OnH2() {
			super("h2");
		}

	}

	@Nested
	class OnPostgreSql extends AbstractJdbcLockBackendContractTests {

		OnPostgreSql() {
			super("postgresql");
		}

	}

	@Nested
	@VirtualThreadContract
	class OnPostgreSqlOnVirtualThreads extends AbstractJdbcLockBackendContractTests {

		OnPostgreSqlOnVirtualThreads() {
			super("postgresql");
		}

	}

	@Nested
	class OnMariaDb extends AbstractJdbcLockBackendContractTests {

		OnMariaDb() {
			super("mariadb");
		}

	}

	/**
	 * On a real MySQL 8.0.12 server, skipped with a warning where it cannot run, plus
	 * what is particular to an attempt of three statements.
	 */
	@Nested
	@EnabledIf("io.github.distributelock.jdbc.EmbeddedMySql#available")
	class OnMySql extends AbstractJdbcLockBackendContractTests {

		OnMySql() {
			super("mysql");
		}

		/**
		 * MySQL has no sequence to draw a token from inside the statement that locks the
		 * row, so an attempt draws it first: an attempt whose token is older than the
		 * row's must not take the row over with it, even once the row is free.
		 */
		@Test
		void attemptThatDrewItsTokenBeforeALaterHolderCannotTakeTheFreedRowOverWithIt() throws Exception {
			HikariDataSource dataSource = closeAfterTest(database().newDataSource());
			JdbcLockBackend backend = new JdbcLockBackend(dataSource);
			Map<String, Object> values = Map.of("key", key(), "owner", "a", "lease_ms", 30_000L);
			List<LockStatement> attempt = LockStatement.loadAll(JdbcLockDialect.named("mysql"), "acquire.sql",
					JdbcLockBackend.DEFAULT_TABLE_NAME);
			assertThat(attempt).hasSize(3);
			AcquireResult later;
			try (Connection a = dataSource.getConnection()) {
				update(a, attempt.get(0), values);
				later = Backends.tryAcquire(backend, key(), "b", Duration.ofSeconds(30));
				assertThat(later.acquired()).isTrue();
				assertThat(Backends.release(backend, key(), "b")).isTrue();
				update(a, attempt.get(1), values);
				try (PreparedStatement read = prepare(a, attempt.get(2), values); ResultSet row = read.executeQuery()) {
					assertThat(row.next()).isTrue();
					row.getLong("fencing_token");
					assertThat(row.wasNull()).as("acquired with a token older than the row's").isTrue();
				}
			}
			assertThat(isLockedInStore(key())).isFalse();
			AcquireResult next = Backends.tryAcquire(backend, key(), "a", Duration.ofSeconds(30));
			assertThat(next.acquired()).isTrue();
			assertThat(next.fencingToken()).isGreaterThan(later.fencingToken());
			assertThat(Backends.release(backend, key(), "a")).isTrue();
		}

		@Test
		void purgeKeepsOnlyTheNewestRowOfTheCounterAndTokensKeepGrowing() {
			JdbcLockBackend backend = newBackend();
			AcquireResult first = Backends.tryAcquire(backend, key(), "a", Duration.ofSeconds(30));
			assertThat(Backends.release(backend, key(), "a")).isTrue();
			AcquireResult second = Backends.tryAcquire(backend, key() + ".other", "a", Duration.ofSeconds(30));
			assertThat(Backends.release(backend, key() + ".other", "a")).isTrue();
			assertThat(counterRows()).isGreaterThan(1);
			backend.deleteReleasedRows();
			assertThat(counterRows()).isOne();
			AcquireResult third = Backends.tryAcquire(backend, key(), "b", Duration.ofSeconds(30));
			assertThat(third.fencingToken()).isGreaterThan(second.fencingToken()).isGreaterThan(first.fencingToken());
			assertThat(Backends.release(backend, key(), "b")).isTrue();
		}

		@Test
		void keyOf512FourByteCharactersIsLockedAndALongerOneIsRefusedNamingTheLimit() {
			JdbcLockBackend backend = newBackend();
			// 512 characters of 4 bytes each in UTF-8: the 2048 bytes of the key column.
			String longest = "\uD83D\uDD12".repeat(JdbcLockBackend.MAX_KEY_LENGTH);
			assertThat(Backends.tryAcquire(backend, longest, "a", Duration.ofSeconds(30)).acquired()).isTrue();
			assertThat(isLockedInStore(longest)).isTrue();
			assertThat(Backends.release(backend, longest, "a")).isTrue();
			assertThatIllegalArgumentException()
				.isThrownBy(() -> Backends.tryAcquire(backend, longest + "x", "a", Duration.ofSeconds(30)))
				.withMessageContaining("longer than the 512 characters the lock table holds");
		}

		private int counterRows() {
			Integer rows = database().jdbcTemplate()
				.queryForObject("SELECT COUNT(*) FROM distributelock_seq", Integer.class);
			return (rows != null) ? rows : 0;
		}

		private static void update(Connection connection, LockStatement statement, Map<String, ?> values)
				throws SQLException {
			try (PreparedStatement update = prepare(connection, statement, values)) {
				update.executeUpdate();
			}
		}

		private static PreparedStatement prepare(Connection connection, LockStatement statement, Map<String, ?> values)
				throws SQLException {
			PreparedStatement prepared = connection.prepareStatement(statement.sql());
			new ArgumentPreparedStatementSetter(statement.arguments(values)).setValues(prepared);
			return prepared;
		}

	}

}
