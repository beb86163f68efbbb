package io.github.distributelock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.dao.DataAccessException;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * On H2, an operation of a caller with less time left than H2's {@code LOCK_TIMEOUT} sets
 * that session setting to the time left, and restores it after the operation. When the
 * restore fails (here because the session was ended by another, with H2's
 * {@code ABORT_SESSION}, just before it), the failure is logged with the key, and what
 * the operation committed before it stands: a plain attempt commits before the restore.
 */
@ExtendWith(OutputCaptureExtension.class)
class JdbcH2LockTimeoutRestoreTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("h2");

	@Test
	void aRestoreFailingOnASessionEndedUnderItIsLoggedWithTheKey(CapturedOutput output) throws Exception {
		JdbcTestDatabase database = databases.get("h2");
		String key = "h2-restore." + System.nanoTime();
		try (HikariDataSource pool = database.newDataSource()) {
			SessionEndedBeforeRestore ending = new SessionEndedBeforeRestore(pool, database);
			try (JdbcLockBackend backend = new JdbcLockBackend(ending)) {
				Claim claim = new Claim(key, "owner", null).until(Deadline.after(Duration.ofMillis(500)));
				ending.armed.set(true);
				// The answer itself is not checked: HikariCP's close of the ended session
				// fails as well, so the attempt answers a store failure after its commit,
				// which the engine takes for an attempt that may have been applied, and
				// gives the key back.
				Throwable failure = catchThrowable(
						() -> Backends.join(backend.tryAcquire(claim, Duration.ofSeconds(30))));
				assertThat(failure == null || failure instanceof DataAccessException)
					.as("answered, or failed as a store failure: %s", failure)
					.isTrue();
				assertThat(ending.ended).as("the session ended before the restore").isTrue();
				assertThat(
						database.jdbcTemplate()
							.queryForList("SELECT owner FROM " + TABLE + " WHERE lock_key = ? AND expires_at > "
									+ database.now(), String.class, key))
					.as("the holder of the key, committed before the restore")
					.containsExactly("owner");
				assertThat(output)
					.contains("Could not restore H2's LOCK_TIMEOUT after an operation on lock '" + key + "'");
			}
		}
	}

	/**
	 * Once armed, ends the session of the connection whose operation is about to restore
	 * its {@code LOCK_TIMEOUT} (the second {@code SET LOCK_TIMEOUT} of the operation),
	 * from another session.
	 */
	private static final class SessionEndedBeforeRestore extends DelegatingDataSource {

		final AtomicBoolean armed = new AtomicBoolean();

		final AtomicBoolean ended = new AtomicBoolean();

		private final AtomicInteger sets = new AtomicInteger();

		private final JdbcTestDatabase database;

		SessionEndedBeforeRestore(DataSource pool, JdbcTestDatabase database) {
			super(pool);
			this.database = database;
		}

		@Override
		public Connection getConnection() throws SQLException {
			Connection connection = super.getConnection();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						if (method.getName().equals("prepareStatement") && this.armed.get()
								&& ((String) args[0]).startsWith("SET LOCK_TIMEOUT") && this.sets.incrementAndGet() == 2
								&& this.armed.compareAndSet(true, false)) {
							endSession(connection);
						}
						try {
							return method.invoke(connection, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

		private void endSession(Connection connection) throws SQLException {
			int session;
			try (Statement statement = connection.createStatement();
					ResultSet rs = statement.executeQuery("SELECT SESSION_ID()")) {
				assertThat(rs.next()).isTrue();
				session = rs.getInt(1);
			}
			Boolean aborted = this.database.jdbcTemplate()
				.queryForObject("SELECT ABORT_SESSION(?)", Boolean.class, session);
			this.ended.set(Boolean.TRUE.equals(aborted));
		}

	}

}
