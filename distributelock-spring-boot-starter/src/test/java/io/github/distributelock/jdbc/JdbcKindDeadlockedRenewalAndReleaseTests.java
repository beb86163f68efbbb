package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A renewal or release of a reader locks the key's row, then the reader's row: a
 * transaction that holds the reader's row and then asks for the key's row closes a cycle,
 * which the database ends by rolling one of the two back (on PostgreSQL the renewal or
 * release, whose wait began first and is checked first; on MariaDB and MySQL the one that
 * changed fewer rows, which the other transaction here outweighs). Like an attempt, the
 * rolled-back renewal or release changed nothing and is made again: it must not reach the
 * caller as a store failure (the watchdog's WARN, a release that throws while its retry
 * frees the key later).
 */
class JdbcKindDeadlockedRenewalAndReleaseTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	/** Rows the other transaction writes first, so that it outweighs the renewal. */
	private static final int WEIGHT = 20;

	@OnEachDatabase
	void aReleaseRolledBackForADeadlockIsMadeAgain(JdbcTestDatabase database) throws Exception {
		String key = "deadlocked-release." + System.nanoTime();
		boolean released = deadlockWith(database, key, (backend) -> backend.release(readerOf(key)));
		assertThat(released).as("released").isTrue();
		assertThat(rows(database, TABLE + "_h", key)).as("the reader's row").isZero();
		assertThat(database.isLocked(key)).as("the key held").isFalse();
	}

	@OnEachDatabase
	void aRenewalRolledBackForADeadlockIsMadeAgain(JdbcTestDatabase database) throws Exception {
		String key = "deadlocked-renewal." + System.nanoTime();
		boolean renewed = deadlockWith(database, key,
				(backend) -> backend.renew(readerOf(key), Duration.ofSeconds(60)));
		assertThat(renewed).as("renewed").isTrue();
		Integer remaining = database.jdbcTemplate()
			.queryForObject("SELECT COUNT(*) FROM " + TABLE + "_h WHERE lock_key = ? AND expires_at > " + database.now()
					+ " + INTERVAL '40' SECOND", Integer.class, key);
		assertThat(remaining).as("the reader's row renewed for 60 s").isOne();
	}

	/**
	 * Takes a read lock on {@code key}, runs {@code call} while another transaction holds
	 * the reader's row, and then has that transaction ask for the key's row.
	 */
	private static <T> T deadlockWith(JdbcTestDatabase database, String key,
			Function<JdbcLockBackend, CompletionStage<T>> call) throws Exception {
		try (HikariDataSource pool = database.newDataSource();
				HikariDataSource other = database.newDataSource((config) -> config.setAutoCommit(false));
				JdbcLockBackend backend = new JdbcLockBackend(pool)) {
			assertThat(Backends.join(backend.tryAcquire(readerOf(key), Duration.ofSeconds(30))).acquired()).isTrue();
			try (Connection connection = other.getConnection()) {
				Timestamp expiry = Timestamp.from(Instant.now().plusSeconds(60));
				try (PreparedStatement weight = connection.prepareStatement("INSERT INTO " + TABLE
						+ "_q (lock_key, owner, kind, arrival, expires_at) VALUES (?, ?, ?, ?, ?)")) {
					for (int i = 0; i < WEIGHT; i++) {
						weight.setString(1, key + ".weight");
						weight.setString(2, "weight-" + i);
						weight.setString(3, "fair");
						weight.setLong(4, i);
						weight.setTimestamp(5, expiry);
						weight.executeUpdate();
					}
				}
				lock(connection, "SELECT owner FROM " + TABLE + "_h WHERE lock_key = ? FOR UPDATE", key);
				CompletableFuture<T> result = call.apply(backend).toCompletableFuture();
				await().atMost(Duration.ofSeconds(20)).until(() -> result.isDone() || lockWaits(database) > 0);
				try {
					lock(connection, "SELECT lock_key FROM " + TABLE + " WHERE lock_key = ? FOR UPDATE", key);
				}
				catch (SQLException ex) {
					// Chosen to end the cycle itself (H2 ends the wait that closes it).
				}
				connection.rollback();
				return result.get(30, TimeUnit.SECONDS);
			}
		}
	}

	private static void lock(Connection connection, String sql, String key) throws SQLException {
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setString(1, key);
			statement.executeQuery().close();
		}
	}

	private static LockBackend.Claim readerOf(String key) {
		return new LockBackend.Claim(key, "reader", null, LockKind.READ);
	}

	private static int lockWaits(JdbcTestDatabase database) {
		Integer waits = database.jdbcTemplate().queryForObject(database.lockWaitsQuery(), Integer.class);
		return (waits != null) ? waits : 0;
	}

	private static int rows(JdbcTestDatabase database, String table, String key) {
		Integer rows = database.jdbcTemplate()
			.queryForObject("SELECT COUNT(*) FROM " + table + " WHERE lock_key = ?", Integer.class, key);
		return (rows != null) ? rows : 0;
	}

}
