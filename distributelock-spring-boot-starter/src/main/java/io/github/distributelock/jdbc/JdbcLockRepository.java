package io.github.distributelock.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;

import javax.sql.DataSource;

import io.github.distributelock.core.AcquireResult;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.datasource.init.ScriptUtils;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * The SQL side of the JDBC backend: one statement per operation, each run on a connection
 * of its own and committed at once, never inside the caller's transaction, so that no
 * connection or transaction is held while a lock is held.
 * <p>
 * Connections are taken from the {@link DataSource} itself and closed after each
 * statement, not through Spring's {@code DataSourceUtils} (which {@code JdbcTemplate}
 * uses): inside a caller's transaction that registers each connection it hands out with
 * the transaction and keeps it until commit, so a pool of N was exhausted by fewer than N
 * transactions that lock.
 */
final class JdbcLockRepository {

	private final DataSource dataSource;

	private final SQLExceptionTranslator exceptionTranslator;

	private final JdbcLockDialect dialect;

	private final String tableName;

	private final LockStatement acquire;

	private final LockStatement remainingLease;

	private final LockStatement renew;

	private final LockStatement release;

	private final LockStatement now;

	private final LockStatement purge;

	JdbcLockRepository(DataSource dataSource, JdbcLockDialect dialect, String tableName) {
		this.dataSource = (dataSource instanceof TransactionAwareDataSourceProxy proxy) ? proxy.getTargetDataSource()
				: dataSource;
		// Error codes by product name: reading them from the DataSource would borrow a
		// connection through DataSourceUtils.
		this.exceptionTranslator = new SQLErrorCodeSQLExceptionTranslator(dialect.productName());
		this.dialect = dialect;
		this.tableName = LockStatement.validTableName(tableName);
		this.acquire = LockStatement.load(dialect, "acquire.sql", tableName);
		this.remainingLease = LockStatement.load(dialect, "remaining-lease.sql", tableName);
		this.renew = LockStatement.load(dialect, "renew.sql", tableName);
		this.release = LockStatement.load(dialect, "release.sql", tableName);
		this.now = LockStatement.load(dialect, "now.sql", tableName);
		this.purge = LockStatement.load(dialect, "purge.sql", tableName);
	}

	JdbcLockDialect dialect() {
		return this.dialect;
	}

	String tableName() {
		return this.tableName;
	}

	/**
	 * One attempt: insert the row, or take over an expired one.
	 */
	AcquireResult acquire(String key, String owner, long leaseMillis) {
		Map<String, Object> values = Map.of("key", key, "owner", owner, "lease_ms", leaseMillis);
		Attempt attempt = query(this.acquire, values,
				(rs) -> new Attempt(nullableLong(rs, "fencing_token"), nullableLong(rs, "remaining_ms")));
		if (attempt != null && attempt.fencingToken() != null) {
			return AcquireResult.acquired(attempt.fencingToken());
		}
		// Dialects that cannot read the holder's lease in the same statement (or did not
		// see a row inserted concurrently) ask once more.
		Long remaining = (attempt != null && attempt.remainingMillis() != null) ? attempt.remainingMillis()
				: remainingLeaseMillis(key);
		return AcquireResult.heldByAnother((remaining != null) ? JdbcLockBackend.leaseDuration(remaining) : null);
	}

	/**
	 * How many milliseconds the holder's lease still runs on the database clock (zero or
	 * less once it has run out), or {@code null} if no row holds the key.
	 */
	@Nullable Long remainingLeaseMillis(String key) {
		return query(this.remainingLease, Map.of("key", key), (rs) -> rs.getLong("remaining_ms"));
	}

	boolean renew(String key, String owner, long leaseMillis) {
		Map<String, Object> values = Map.of("key", key, "owner", owner, "lease_ms", leaseMillis);
		return execute(this.renew, values, PreparedStatement::executeUpdate) == 1;
	}

	/**
	 * Frees this owner's lock, keeping the row for the key's next acquisition.
	 * @return whether this owner held the row with its lease still running
	 */
	boolean release(String key, String owner) {
		return execute(this.release, Map.of("key", key, "owner", owner), PreparedStatement::executeUpdate) == 1;
	}

	/**
	 * Deletes the rows that have been free for longer than {@code retentionMillis}.
	 * @return how many rows were deleted
	 */
	int purge(long retentionMillis) {
		return execute(this.purge, Map.of("retention_ms", retentionMillis), PreparedStatement::executeUpdate);
	}

	/** The database clock in milliseconds since the epoch. */
	long databaseTimeMillis() {
		Long now = query(this.now, Map.of(), (rs) -> rs.getLong("now_ms"));
		if (now == null) {
			throw new IllegalStateException("The database returned no time");
		}
		return now;
	}

	/** Creates the sequence and the table unless they exist. */
	void createSchema() {
		String script = LockStatement.text(this.dialect, "schema.sql", this.tableName);
		onOwnConnection("create the lock table", (connection) -> {
			ScriptUtils.executeSqlScript(connection,
					new ByteArrayResource(script.getBytes(StandardCharsets.UTF_8), "distributelock schema"));
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
			return null;
		});
	}

	private <T> @Nullable T query(LockStatement statement, Map<String, ?> values, RowReader<T> reader) {
		return execute(statement, values, (ps) -> {
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? reader.read(rs) : null;
			}
		});
	}

	private <T> T execute(LockStatement statement, Map<String, ?> values, StatementWork<T> work) {
		Object[] arguments = statement.arguments(values);
		return onOwnConnection(statement.name(), (connection) -> {
			boolean autoCommit = connection.getAutoCommit();
			try (PreparedStatement ps = connection.prepareStatement(statement.sql())) {
				new ArgumentPreparedStatementSetter(arguments).setValues(ps);
				T result = work.run(ps);
				if (!autoCommit) {
					// A pool that hands out connections in manual-commit mode would roll
					// the statement back when the connection returns to it.
					connection.commit();
				}
				return result;
			}
			catch (SQLException | RuntimeException ex) {
				if (!autoCommit) {
					rollback(connection, ex);
				}
				throw ex;
			}
		});
	}

	/**
	 * Runs {@code work} on a connection borrowed for it alone and returned at once,
	 * translating a failure as {@code JdbcTemplate} would.
	 */
	private <T> T onOwnConnection(String task, ConnectionWork<T> work) {
		try (Connection connection = this.dataSource.getConnection()) {
			return work.run(connection);
		}
		catch (SQLException ex) {
			RuntimeException translated = this.exceptionTranslator.translate(task, null, ex);
			throw (translated != null) ? translated : new UncategorizedSQLException(task, null, ex);
		}
	}

	private static void rollback(Connection connection, Exception failure) {
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			failure.addSuppressed(ex);
		}
	}

	private static @Nullable Long nullableLong(ResultSet resultSet, String column) throws SQLException {
		long value = resultSet.getLong(column);
		return resultSet.wasNull() ? null : value;
	}

	/** The row an attempt returns: a token when acquired, else the holder's lease. */
	private record Attempt(@Nullable Long fencingToken, @Nullable Long remainingMillis) {
	}

	@FunctionalInterface
	private interface StatementWork<T> {

		T run(PreparedStatement statement) throws SQLException;

	}

	@FunctionalInterface
	private interface ConnectionWork<T> {

		T run(Connection connection) throws SQLException;

	}

	@FunctionalInterface
	private interface RowReader<T> {

		T read(ResultSet resultSet) throws SQLException;

	}

}
