package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.LockBackend.Claim;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The notifying release of a plain lock on PostgreSQL, statement by statement: it
 * notifies the key once when it frees this owner's lock, and never when it frees nothing
 * (another owner's lock, a lease already run out, a second release). On the lock table
 * with the {@code waited} column the row is marked first by a refused attempt, so that
 * only the owner and the lease decide; on a table without it every release that frees
 * notifies.
 */
class PostgresReleaseNotifyStatementTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");

	private static final String UNMARKED_TABLE = "unmarked_release_" + System.nanoTime();

	private static HikariDataSource pool;

	private static HikariDataSource listening;

	@BeforeAll
	static void createTables() {
		JdbcTestDatabase database = databases.get("postgresql");
		pool = database.newDataSource();
		listening = database.newDataSource();
		// As created before the waited column existed.
		database.jdbcTemplate()
			.execute("CREATE TABLE " + UNMARKED_TABLE + " (lock_key VARCHAR(512) NOT NULL PRIMARY KEY, "
					+ "owner VARCHAR(255) NOT NULL, fencing_token BIGINT NOT NULL, "
					+ "expires_at TIMESTAMP WITH TIME ZONE NOT NULL, acquired_at TIMESTAMP WITH TIME ZONE NOT NULL)");
		database.jdbcTemplate().execute("CREATE SEQUENCE " + UNMARKED_TABLE + "_seq");
	}

	@AfterAll
	static void closePools() {
		if (listening != null) {
			listening.close();
		}
		if (pool != null) {
			pool.close();
		}
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void releaseThatFreesTheLockNotifiesItsKeyOnceAndASecondReleaseNobody(boolean waitedColumn) throws Exception {
		String table = table(waitedColumn);
		JdbcLockRepository repository = repository(table);
		String key = "freed.'; NOTIFY other; --" + System.nanoTime();
		heldAndWaitedFor(repository, key);
		try (Connection connection = listening.getConnection()) {
			listen(connection, table);
			assertThat(repository.releaseNotifying(key, "holder", channel(table))).isTrue();
			assertThat(notifiedUntilSentinel(connection, table)).containsOnlyOnce(key);
			assertThat(repository.releaseNotifying(key, "holder", channel(table))).isFalse();
			assertThat(notifiedUntilSentinel(connection, table)).doesNotContain(key);
		}
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void releaseByAnotherOwnerNotifiesNobodyAndLeavesTheMarkForTheHolders(boolean waitedColumn) throws Exception {
		String table = table(waitedColumn);
		JdbcLockRepository repository = repository(table);
		String key = "other.owner." + System.nanoTime();
		heldAndWaitedFor(repository, key);
		try (Connection connection = listening.getConnection()) {
			listen(connection, table);
			assertThat(repository.releaseNotifying(key, "waiter", channel(table))).isFalse();
			assertThat(notifiedUntilSentinel(connection, table)).doesNotContain(key);
			assertThat(repository.releaseNotifying(key, "holder", channel(table))).isTrue();
			assertThat(notifiedUntilSentinel(connection, table)).containsOnlyOnce(key);
		}
	}

	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void releaseAfterTheLeaseRanOutNotifiesNobody(boolean waitedColumn) throws Exception {
		String table = table(waitedColumn);
		JdbcLockRepository repository = repository(table);
		String key = "ran.out." + System.nanoTime();
		heldAndWaitedFor(repository, key);
		databases.get("postgresql")
			.jdbcTemplate()
			.update("UPDATE " + table + " SET expires_at = CURRENT_TIMESTAMP - INTERVAL '1 second' WHERE lock_key = ?",
					key);
		try (Connection connection = listening.getConnection()) {
			listen(connection, table);
			assertThat(repository.releaseNotifying(key, "holder", channel(table))).isFalse();
			assertThat(notifiedUntilSentinel(connection, table)).doesNotContain(key);
		}
	}

	/**
	 * A release that waits for the row behind a transaction that takes the key over (the
	 * holder's lease ran out between the release's start and the taker's) frees nothing:
	 * PostgreSQL checks the row again once it has it, finds another owner and updates
	 * nothing.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { true, false })
	void releaseThatWaitedBehindATakeOverFreesNothingAndNotifiesNobody(boolean waitedColumn) throws Exception {
		String table = table(waitedColumn);
		JdbcLockRepository repository = repository(table);
		String key = "taken.over." + System.nanoTime();
		heldAndWaitedFor(repository, key);
		ExecutorService releasing = Executors.newSingleThreadExecutor();
		try (Connection taker = pool.getConnection(); Connection connection = listening.getConnection()) {
			listen(connection, table);
			taker.setAutoCommit(false);
			try (PreparedStatement takeOver = taker.prepareStatement("UPDATE " + table
					+ " SET owner = 'taker', expires_at = CURRENT_TIMESTAMP + INTERVAL '2 minutes' WHERE lock_key = ?")) {
				takeOver.setString(1, key);
				assertThat(takeOver.executeUpdate()).isOne();
			}
			Future<Boolean> released = releasing
				.submit(() -> repository.releaseNotifying(key, "holder", channel(table)));
			await().atMost(Duration.ofSeconds(20))
				.until(() -> databases.get("postgresql")
					.jdbcTemplate()
					.queryForObject("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
							+ "AND query LIKE '%pg_notify%'", Integer.class) == 1);
			taker.commit();
			assertThat(released.get(20, TimeUnit.SECONDS)).isFalse();
			assertThat(notifiedUntilSentinel(connection, table)).doesNotContain(key);
		}
		finally {
			releasing.shutdownNow();
		}
	}

	/**
	 * The holder takes the key and another owner's attempt is refused: on the lock table
	 * with the waited column, that marks the row, so that the release has to notify.
	 */
	private static void heldAndWaitedFor(JdbcLockRepository repository, String key) {
		assertThat(repository.acquire(new Claim(key, "holder"), TimeUnit.MINUTES.toMillis(2)).acquired()).isTrue();
		assertThat(repository.acquire(new Claim(key, "waiter"), TimeUnit.MINUTES.toMillis(2)).acquired()).isFalse();
	}

	private static String table(boolean waitedColumn) {
		return waitedColumn ? JdbcLockBackend.DEFAULT_TABLE_NAME : UNMARKED_TABLE;
	}

	private static String channel(String table) {
		return PostgresReleaseListener.channel(table);
	}

	private static JdbcLockRepository repository(String table) {
		return new JdbcLockRepository(pool, JdbcLockDialect.named("postgresql"), table);
	}

	private static void listen(Connection connection, String table) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute("LISTEN \"" + channel(table) + "\"");
		}
	}

	/**
	 * The payloads {@code connection} was notified of on the table's channel before a
	 * sentinel notified after them.
	 */
	private static List<String> notifiedUntilSentinel(Connection connection, String table) throws SQLException {
		String sentinel = "sentinel." + System.nanoTime();
		try (Connection notifying = pool.getConnection();
				PreparedStatement statement = notifying.prepareStatement("SELECT pg_notify(?, ?)")) {
			statement.setString(1, channel(table));
			statement.setString(2, sentinel);
			statement.execute();
		}
		List<String> keys = new ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(500);
			for (PGNotification notification : (notifications != null) ? notifications : new PGNotification[0]) {
				if (notification.getParameter().equals(sentinel)) {
					return keys;
				}
				keys.add(notification.getParameter());
			}
		}
		throw new AssertionError("The sentinel notification did not come within 20 s; came before: " + keys);
	}

}
