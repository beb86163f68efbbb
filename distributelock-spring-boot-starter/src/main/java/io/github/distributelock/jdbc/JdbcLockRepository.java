package io.github.distributelock.jdbc;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.jdbc.JdbcRowLockWaits.Bounded;
import io.github.distributelock.jdbc.JdbcRowLockWaits.RowWait;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ByteArrayResource;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.jdbc.datasource.init.ScriptUtils;
import org.springframework.jdbc.support.SQLErrorCodeSQLExceptionTranslator;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * The SQL side of the JDBC backend: one statement per operation (an attempt on MySQL is
 * three, in one short transaction), each operation run on a connection of its own and
 * committed at once, never inside the caller's transaction, so that no connection or
 * transaction is held while a lock is held.
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

	private final List<Bounded> acquire;

	/** PostgreSQL's attempt that marks the holder's row ({@link WaitedMarks}). */
	private final @Nullable List<Bounded> acquireMarking;

	/** The attempt's SQL, as store errors name the task that failed. */
	private final String acquireTask;

	/** The attempt's file, as the log names an operation. */
	private final String acquireName;

	private final LockStatement remainingLease;

	private final LockStatement renew;

	private final LockStatement release;

	private final @Nullable LockStatement releaseNotify;

	/** PostgreSQL's: a release notifies only when somebody waits. */
	private final @Nullable WaitedMarks waitedMarks;

	private final LockStatement now;

	/** Ends a statement that runs past the statement timeout. */
	private final JdbcStatementTimeouts timeouts;

	/** Ends a wait for another transaction's row at the caller's deadline. */
	private final JdbcRowLockWaits rowWaits;

	JdbcLockRepository(DataSource dataSource, JdbcLockDialect dialect, String tableName) {
		this.dataSource = (dataSource instanceof TransactionAwareDataSourceProxy proxy) ? proxy.getTargetDataSource()
				: dataSource;
		// Error codes by product name: reading them from the DataSource would borrow a
		// connection through DataSourceUtils.
		this.exceptionTranslator = new SQLErrorCodeSQLExceptionTranslator(dialect.productName());
		this.dialect = dialect;
		this.timeouts = new JdbcStatementTimeouts(dialect.statementBound(), AbortedConnections.of(this.dataSource));
		this.tableName = LockStatement.validTableName(tableName);
		this.rowWaits = new JdbcRowLockWaits(dialect, tableName, this.timeouts);
		List<LockStatement> acquire = LockStatement.loadAll(dialect, "acquire.sql", tableName);
		this.acquire = this.rowWaits.boundedAll("acquire.sql", acquire);
		this.acquireTask = acquire.stream().map(LockStatement::sql).collect(Collectors.joining(";\n"));
		this.acquireName = acquire.get(0).name();
		this.remainingLease = LockStatement.load(dialect, "remaining-lease.sql", tableName);
		this.renew = LockStatement.load(dialect, "renew.sql", tableName);
		this.release = LockStatement.load(dialect, "release.sql", tableName);
		this.releaseNotify = LockStatement.exists(dialect, "release-notify.sql")
				? LockStatement.load(dialect, "release-notify.sql", tableName) : null;
		this.waitedMarks = WaitedMarks.of(dialect, tableName);
		this.acquireMarking = (this.waitedMarks != null)
				? this.rowWaits.boundedAll("acquire-marking.sql", this.waitedMarks.acquire()) : null;
		this.now = LockStatement.load(dialect, "now.sql", tableName);
	}

	JdbcLockDialect dialect() {
		return this.dialect;
	}

	JdbcRowLockWaits rowWaits() {
		return this.rowWaits;
	}

	/**
	 * Bounds each lock statement by {@code timeout}, rounded up to whole seconds, or not
	 * at all when it is zero.
	 */
	void statementTimeout(Duration timeout) {
		this.timeouts.timeout(timeout);
	}

	Duration statementTimeout() {
		return this.timeouts.timeout();
	}

	String tableName() {
		return this.tableName;
	}

	/** The database, without a transaction-aware proxy. */
	DataSource dataSource() {
		return this.dataSource;
	}

	/** Whether the dialect can notify releases ({@code release-notify.sql}). */
	boolean notifiesReleases() {
		return this.releaseNotify != null;
	}

	/**
	 * One attempt: insert the row, or take over an expired one (and on a lock table with
	 * the {@code waited} column, mark a holder's row as waited for), waiting for the row
	 * lock of another transaction until the claim's deadline at most
	 * ({@link JdbcRowLockWaits}), or as long as the statement timeout lets it if it has
	 * none.
	 */
	AcquireResult acquire(Claim claim, long leaseMillis) {
		String key = claim.key();
		String owner = claim.owner();
		WaitedMarks marks = this.waitedMarks;
		RowWait wait = this.rowWaits.bound(claim.deadline());
		List<LockStatement> plain = Bounded.waiting(this.acquire, wait);
		List<Bounded> marking = this.acquireMarking;
		Attempt attempt = onOwnConnection(this.acquireTask, this.acquireName, true,
				(connection) -> this.rowWaits.around(connection, wait, key,
						() -> (marks != null && marking != null)
								? marks.run(
										() -> committedAttempt(connection, Bounded.waiting(marking, wait), key, owner,
												leaseMillis, wait),
										() -> committedAttempt(connection, plain, key, owner, leaseMillis, wait))
								: committedAttempt(connection, plain, key, owner, leaseMillis, wait)));
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
	 * Runs the attempt's statements on {@code connection}, in its transaction if it has
	 * one, and commits nothing.
	 * @return the row the last statement returns, or {@code null} if it returns none
	 */
	@Nullable Attempt attempt(Connection connection, String key, String owner, long leaseMillis) throws SQLException {
		WaitedMarks marks = this.waitedMarks;
		List<LockStatement> statements = (marks != null && !marks.missing()) ? marks.acquire()
				: Bounded.waiting(this.acquire, null);
		return attempt(connection, statements, key, owner, leaseMillis, null);
	}

	private @Nullable Attempt committedAttempt(Connection connection, List<LockStatement> statements, String key,
			String owner, long leaseMillis, @Nullable RowWait wait) throws SQLException {
		return JdbcCommits.committed(connection, statements.size() > 1,
				() -> attempt(connection, statements, key, owner, leaseMillis, wait));
	}

	private @Nullable Attempt attempt(Connection connection, List<LockStatement> statements, String key, String owner,
			long leaseMillis, @Nullable RowWait wait) throws SQLException {
		Map<String, Object> values = Map.of("key", key, "owner", owner, "lease_ms", leaseMillis, "lock_wait",
				(wait != null) ? wait.text() : "");
		for (LockStatement statement : statements.subList(0, statements.size() - 1)) {
			try (PreparedStatement ps = prepare(connection, statement, values)) {
				this.timeouts.run(connection, ps, PreparedStatement::executeUpdate);
			}
		}
		try (PreparedStatement ps = prepare(connection, statements.get(statements.size() - 1), values);
				ResultSet rs = this.timeouts.run(connection, ps, PreparedStatement::executeQuery)) {
			return rs.next() ? new Attempt(nullableLong(rs, "fencing_token"), nullableLong(rs, "remaining_ms")) : null;
		}
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
	 * Runs {@code work} on a connection borrowed for it alone, in one transaction when
	 * asked for, committed before the connection goes back (rolled back if {@code work}
	 * fails): the operations of the other kinds of lock ({@link JdbcLockKinds}).
	 */
	<T> T onConnection(String task, boolean oneTransaction, ConnectionWork<T> work) {
		return onOwnConnection(task,
				(connection) -> JdbcCommits.committed(connection, oneTransaction, () -> work.run(connection)));
	}

	/**
	 * Runs {@code work} as {@link #onConnection} does, in one transaction, telling it
	 * whether to use the lock table's {@code waited} column: if a statement finds the
	 * column missing, the transaction is rolled back and {@code work} runs again without
	 * it, and from then on (see {@link WaitedMarks}).
	 */
	<T> T onConnectionMarking(String task, MarkingWork<T> work) {
		WaitedMarks marks = this.waitedMarks;
		return onOwnConnection(
				task, (
						connection) -> (marks != null)
								? marks.run(
										() -> JdbcCommits.committed(connection, true, () -> work.run(connection, true)),
										() -> JdbcCommits.committed(connection, true,
												() -> work.run(connection, false)))
								: JdbcCommits.committed(connection, true, () -> work.run(connection, false)));
	}

	/**
	 * Frees this owner's lock, keeping the row for the key's next acquisition.
	 * @return whether this owner held the row with its lease still running
	 */
	boolean release(String key, String owner) {
		return execute(this.release, Map.of("key", key, "owner", owner), PreparedStatement::executeUpdate) == 1;
	}

	/**
	 * Frees this owner's lock as {@link #release} does and, in the same statement,
	 * notifies {@code channel} with the key: when an attempt found the lock held during
	 * this hold, or on every release where the table cannot record that.
	 * @return whether this owner held the row with its lease still running
	 */
	boolean releaseNotifying(String key, String owner, String channel) {
		LockStatement notifying = this.releaseNotify;
		if (notifying == null) {
			throw new IllegalStateException(this.dialect + " cannot notify releases");
		}
		Map<String, Object> values = Map.of("key", key, "owner", owner, "channel", channel);
		WaitedMarks marks = this.waitedMarks;
		return onOwnConnection(notifying.name(),
				(connection) -> (marks != null)
						? marks.run(() -> released(connection, marks.releaseNotify(), values),
								() -> released(connection, notifying, values))
						: released(connection, notifying, values));
	}

	/** Runs a release that returns a row when it freed the lock, and commits it. */
	private boolean released(Connection connection, LockStatement statement, Map<String, Object> values)
			throws SQLException {
		return JdbcCommits.committed(connection, false, () -> {
			try (PreparedStatement ps = prepare(connection, statement, values);
					ResultSet rs = this.timeouts.run(connection, ps, PreparedStatement::executeQuery)) {
				return rs.next();
			}
		});
	}

	/** The database clock in milliseconds since the epoch. */
	long databaseTimeMillis() {
		Long now = query(this.now, Map.of(), (rs) -> rs.getLong("now_ms"));
		if (now == null) {
			throw new IllegalStateException("The database returned no time");
		}
		return now;
	}

	/**
	 * Creates the sequence and the tables unless they exist, and adds the {@code waited}
	 * column to a lock table created without it.
	 */
	void createSchema() {
		runScript(LockStatement.text(this.dialect, "schema.sql", this.tableName), "create the lock table");
		WaitedMarks marks = this.waitedMarks;
		if (marks != null) {
			// Only when it is missing: PostgreSQL asks for the table's owner for any
			// ALTER TABLE, even one with nothing to do.
			if (!hasWaitedColumn(marks)) {
				run(marks.columnAdd(), Map.of());
			}
			marks.columnPresent();
		}
	}

	private boolean hasWaitedColumn(WaitedMarks marks) {
		try {
			query(marks.columnCheck(), Map.of(), (rs) -> Boolean.TRUE);
			return true;
		}
		catch (DataAccessException ex) {
			if (WaitedMarks.undefinedColumn(ex.getMostSpecificCause())) {
				return false;
			}
			throw ex;
		}
	}

	/**
	 * Runs a script of statements that end with semicolons, and commits it: not bounded
	 * by the statement timeout, as it creates or changes the schema, which may wait for
	 * the table as long as the database lets it.
	 */
	void runScript(String script, String task) {
		onOwnConnection(task, task, false, (connection) -> {
			ScriptUtils.executeSqlScript(connection,
					new ByteArrayResource(script.getBytes(StandardCharsets.UTF_8), "distributelock: " + task));
			if (!connection.getAutoCommit()) {
				connection.commit();
			}
			return null;
		});
	}

	/** Runs a statement that changes rows, committed at once. */
	int update(LockStatement statement, Map<String, ?> values) {
		return execute(statement, values, PreparedStatement::executeUpdate);
	}

	/** Runs a statement, of any kind, committed at once. */
	void run(LockStatement statement, Map<String, ?> values) {
		execute(statement, values, PreparedStatement::execute);
	}

	/**
	 * Runs statements on one connection in one transaction, and reads the first row of
	 * the last one.
	 */
	<T> @Nullable T queryAfter(List<LockStatement> statements, Map<String, ?> values, RowReader<T> reader) {
		LockStatement last = statements.get(statements.size() - 1);
		return onOwnConnection(last.name(),
				(connection) -> JdbcCommits.committed(connection, statements.size() > 1, () -> {
					for (LockStatement statement : statements.subList(0, statements.size() - 1)) {
						try (PreparedStatement ps = prepare(connection, statement, values)) {
							this.timeouts.run(connection, ps, PreparedStatement::executeUpdate);
						}
					}
					try (PreparedStatement ps = prepare(connection, last, values);
							ResultSet rs = this.timeouts.run(connection, ps, PreparedStatement::executeQuery)) {
						return rs.next() ? reader.read(rs) : null;
					}
				}));
	}

	/** Runs a query, committed at once, and reads its first row. */
	<T> @Nullable T query(LockStatement statement, Map<String, ?> values, RowReader<T> reader) {
		return execute(statement, values, (ps) -> {
			try (ResultSet rs = ps.executeQuery()) {
				return rs.next() ? reader.read(rs) : null;
			}
		});
	}

	private <T> T execute(LockStatement statement, Map<String, ?> values, JdbcStatementTimeouts.StatementWork<T> work) {
		return onOwnConnection(statement.name(), (connection) -> JdbcCommits.committed(connection, false, () -> {
			try (PreparedStatement ps = prepare(connection, statement, values)) {
				return this.timeouts.run(connection, ps, work);
			}
		}));
	}

	/**
	 * Runs a prepared lock statement, cancelled if it runs past the statement timeout.
	 */
	<T> T timed(Connection connection, PreparedStatement statement, JdbcStatementTimeouts.StatementWork<T> work)
			throws SQLException {
		return this.timeouts.run(connection, statement, work);
	}

	/** Prepares a lock statement with its arguments. */
	PreparedStatement prepare(Connection connection, LockStatement statement, Map<String, ?> values)
			throws SQLException {
		PreparedStatement ps = connection.prepareStatement(statement.sql(values));
		try {
			this.timeouts.prepare(ps);
			new ArgumentPreparedStatementSetter(statement.arguments(values)).setValues(ps);
			return ps;
		}
		catch (SQLException | RuntimeException ex) {
			ps.close();
			throw ex;
		}
	}

	/**
	 * Runs {@code work} on a connection borrowed for it alone and returned at once,
	 * translating a failure as {@code JdbcTemplate} would.
	 */
	private <T> T onOwnConnection(String task, ConnectionWork<T> work) {
		return onOwnConnection(task, task, true, work);
	}

	/**
	 * Runs {@code work} as {@link #onOwnConnection(String, ConnectionWork)} does,
	 * {@linkplain JdbcStatementTimeouts#watched watched} as a whole from its first round
	 * trip to its last if asked.
	 * @param name what the log calls the operation
	 */
	private <T> T onOwnConnection(String task, String name, boolean watched, ConnectionWork<T> work) {
		Connection borrowed;
		try {
			borrowed = this.dataSource.getConnection();
		}
		catch (SQLException ex) {
			if (Thread.currentThread().isInterrupted() || ex.getCause() instanceof InterruptedException) {
				throw new NotSent(task, ex);
			}
			throw translated(task, ex);
		}
		try (Connection connection = borrowed) {
			return watched ? this.timeouts.watched(connection, name, work) : work.run(connection);
		}
		catch (SQLException ex) {
			throw translated(task, ex);
		}
	}

	private RuntimeException translated(String task, SQLException ex) {
		if (ex instanceof JdbcStatementTimedOut timedOut) {
			long seconds = timedOut.timeout().toSeconds();
			return new QueryTimeoutException(timedOut.aborted()
					? "A round trip to the database (a statement, a commit or rollback, a change of the "
							+ "commit mode) went unanswered for twice the statement timeout of " + seconds
							+ " s (distributelock.jdbc.statement-timeout), and its connection was closed: the "
							+ "database did not answer (a frozen server, a lost network). Set the JDBC driver's "
							+ "socket timeout (socketTimeout) to end such a wait sooner"
					: "A lock statement ran longer than the statement timeout of " + seconds
							+ " s (distributelock.jdbc.statement-timeout) and was cancelled: the database kept it "
							+ "waiting, such as for the row lock of a transaction whose client stalled",
					ex);
		}
		RuntimeException translated = this.exceptionTranslator.translate(task, null, ex);
		return (translated != null) ? translated : new UncategorizedSQLException(task, null, ex);
	}

	/**
	 * A statement never sent: the thread that was to send it was interrupted while it
	 * waited for a connection of the pool (HikariCP ends that wait at an interrupt).
	 */
	static final class NotSent extends TransientDataAccessResourceException {

		NotSent(String task, SQLException cause) {
			super(task + ": not sent, as the thread was interrupted while it waited for a connection of the pool",
					cause);
		}

	}

	private static @Nullable Long nullableLong(ResultSet resultSet, String column) throws SQLException {
		long value = resultSet.getLong(column);
		return resultSet.wasNull() ? null : value;
	}

	/** The row an attempt returns: a token when acquired, else the holder's lease. */
	record Attempt(@Nullable Long fencingToken, @Nullable Long remainingMillis) {
	}

	@FunctionalInterface
	interface ConnectionWork<T> {

		T run(Connection connection) throws SQLException;

	}

	@FunctionalInterface
	interface MarkingWork<T> {

		/**
		 * Works on {@code connection}; {@code marked} says whether statements may use the
		 * lock table's {@code waited} column.
		 */
		T run(Connection connection, boolean marked) throws SQLException;

	}

	@FunctionalInterface
	interface RowReader<T> {

		T read(ResultSet resultSet) throws SQLException;

	}

}
