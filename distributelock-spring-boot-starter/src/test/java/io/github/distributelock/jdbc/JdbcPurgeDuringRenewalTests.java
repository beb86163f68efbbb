package io.github.distributelock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On MariaDB and MySQL the purge of released rows locks only the rows it deletes: a
 * renewal of a held lock does not wait for a purge that runs at the same time. The
 * purge's transaction is held open after its first {@code DELETE} of the table under
 * test, and the renewing instance waits one second at most for a row lock, so that a
 * renewal queued behind the purge fails instead of waiting.
 */
class JdbcPurgeDuringRenewalTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	@ParameterizedTest
	@ValueSource(strings = { "mariadb", "mysql" })
	void aRenewalOfAHeldLockDoesNotWaitForAPurgeInProgress(String dialect) throws Exception {
		JdbcTestDatabase database = databases.get(dialect);
		String table = "purge_renewal_" + dialect;
		Claim held = new Claim("purge-renewal.held." + System.nanoTime(), "holder");
		try (HikariDataSource renewingData = database
			.newDataSource((config) -> config.setConnectionInitSql("SET SESSION innodb_lock_wait_timeout = 1"));
				HikariDataSource purgingData = database.newDataSource((config) -> config.setAutoCommit(false));
				JdbcLockBackend renewing = new JdbcLockBackend(renewingData, table, null, Clock.systemUTC())) {
			renewing.createSchema();
			JdbcTemplate jdbc = new JdbcTemplate(renewingData);
			jdbc.update("DELETE FROM " + table);
			Timestamp longAgo = Timestamp.from(Instant.now().minus(Duration.ofDays(2)));
			jdbc.update("INSERT INTO " + table + " (lock_key, owner, fencing_token, expires_at, acquired_at) "
					+ "VALUES (?, 'gone', 0, ?, ?)", "purge-renewal.gone", longAgo, longAgo);
			assertThat(Backends.join(renewing.tryAcquire(held, Duration.ofMinutes(1))).acquired()).isTrue();

			renewsWhileAPurgeIsOpen(renewing, held, new CommitAfterDeleteHeld(purgingData, table), table);
			assertThat(jdbc.queryForList("SELECT lock_key FROM " + table, String.class)).containsExactly(held.key());
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "mariadb", "mysql" })
	void aRenewalOfAHeldReadLockDoesNotWaitForAPurgeOfTheHolderTableInProgress(String dialect) throws Exception {
		JdbcTestDatabase database = databases.get(dialect);
		String table = "purge_renewal_kinds_" + dialect;
		Claim held = new Claim("purge-renewal.reader." + System.nanoTime(), "reader", null, LockKind.READ);
		try (HikariDataSource renewingData = database
			.newDataSource((config) -> config.setConnectionInitSql("SET SESSION innodb_lock_wait_timeout = 1"));
				HikariDataSource purgingData = database.newDataSource((config) -> config.setAutoCommit(false));
				JdbcLockBackend renewing = new JdbcLockBackend(renewingData, table, null, Clock.systemUTC())) {
			renewing.createSchema();
			JdbcTemplate jdbc = new JdbcTemplate(renewingData);
			jdbc.update("DELETE FROM " + table);
			jdbc.update("DELETE FROM " + table + "_h");
			Timestamp longAgo = Timestamp.from(Instant.now().minus(Duration.ofDays(2)));
			jdbc.update("INSERT INTO " + table + "_h (lock_key, owner, kind, fencing_token, expires_at, acquired_at) "
					+ "VALUES (?, 'gone', 'READ', 0, ?, ?)", "purge-renewal.gone", longAgo, longAgo);
			assertThat(Backends.join(renewing.tryAcquire(held, Duration.ofMinutes(1))).acquired()).isTrue();

			renewsWhileAPurgeIsOpen(renewing, held, new CommitAfterDeleteHeld(purgingData, table + "_h"), table);
			assertThat(jdbc.queryForList("SELECT lock_key FROM " + table + "_h", String.class))
				.containsExactly(held.key());
		}
	}

	/**
	 * Renews {@code held} while another backend's purge, on {@code purgingHeld}, has
	 * deleted a released row and keeps its transaction open.
	 */
	private static void renewsWhileAPurgeIsOpen(JdbcLockBackend renewing, Claim held, CommitAfterDeleteHeld purgingHeld,
			String table) throws Exception {
		try (JdbcLockBackend purging = new JdbcLockBackend(purgingHeld, table, null, Clock.systemUTC(),
				Duration.ofMinutes(1))) {
			CompletableFuture<Integer> purge = CompletableFuture.supplyAsync(purging::deleteReleasedRows);
			try {
				assertThat(purgingHeld.deleted.await(30, TimeUnit.SECONDS)).as("the purge deleted a released row")
					.isTrue();
				assertThat(Backends.join(renewing.renew(held, Duration.ofMinutes(1))))
					.as("the renewal of the held lock while the purge's transaction is open")
					.isTrue();
			}
			finally {
				purgingHeld.commit.countDown();
			}
			assertThat(purge.get(30, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(1);
		}
	}

	/**
	 * Holds the first transaction that ran a {@code DELETE} from {@code table} open at
	 * its commit, until {@link #commit} opens.
	 */
	private static final class CommitAfterDeleteHeld extends DelegatingDataSource {

		final CountDownLatch deleted = new CountDownLatch(1);

		final CountDownLatch commit = new CountDownLatch(1);

		private final AtomicBoolean held = new AtomicBoolean();

		private final Pattern deleteFromTable;

		CommitAfterDeleteHeld(DataSource pool, String table) {
			super(pool);
			this.deleteFromTable = Pattern.compile("\\s*DELETE\\b.*?\\bFROM\\s+" + table + "\\b.*",
					Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
		}

		@Override
		public Connection getConnection() throws SQLException {
			Connection connection = super.getConnection();
			AtomicBoolean deleting = new AtomicBoolean();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						if (method.getName().equals("prepareStatement")
								&& this.deleteFromTable.matcher((String) args[0]).matches()) {
							deleting.set(true);
						}
						if (method.getName().equals("commit") && deleting.get()
								&& this.held.compareAndSet(false, true)) {
							this.deleted.countDown();
							if (!this.commit.await(60, TimeUnit.SECONDS)) {
								throw new IllegalStateException("The test never let the purge commit");
							}
						}
						try {
							return method.invoke(connection, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

	}

}
