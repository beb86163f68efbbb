package io.github.distributelock.jdbc;

import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The {@code waited} column of PostgreSQL's lock table, by which a release notifies only
 * when somebody waits: an attempt refused by a holder marks the row
 * ({@code acquire-marking.sql}), and the release notifies a marked row only
 * ({@code release-notify-waited.sql}). A lock table created before the column existed
 * keeps working with the statements that notify every release: the first statement that
 * finds the column missing (SQLSTATE 42703) switches this table to them for good and logs
 * one WARN.
 */
final class WaitedMarks {

	private static final Log logger = LogFactory.getLog(WaitedMarks.class);

	/** PostgreSQL's SQLSTATE for a column that does not exist. */
	private static final String UNDEFINED_COLUMN = "42703";

	private final String tableName;

	private final List<LockStatement> acquire;

	private final LockStatement releaseNotify;

	private final LockStatement check;

	private final LockStatement add;

	/** Set when the column was found missing: the statements of every release then. */
	private volatile boolean missing;

	private final AtomicBoolean warned = new AtomicBoolean();

	private WaitedMarks(JdbcLockDialect dialect, String tableName) {
		this.tableName = tableName;
		this.acquire = LockStatement.loadAll(dialect, "acquire-marking.sql", tableName);
		this.releaseNotify = LockStatement.load(dialect, "release-notify-waited.sql", tableName);
		this.check = LockStatement.load(dialect, "waited-column.sql", tableName);
		this.add = LockStatement.load(dialect, "waited-column-add.sql", tableName);
	}

	/** The marks of the dialect's lock table, or {@code null} if it has none. */
	static @Nullable WaitedMarks of(JdbcLockDialect dialect, String tableName) {
		return LockStatement.exists(dialect, "acquire-marking.sql") ? new WaitedMarks(dialect, tableName) : null;
	}

	/** Whether the column was found missing. */
	boolean missing() {
		return this.missing;
	}

	/** The attempt that marks the row of the holder it finds. */
	List<LockStatement> acquire() {
		return this.acquire;
	}

	/** The release that notifies only a marked row. */
	LockStatement releaseNotify() {
		return this.releaseNotify;
	}

	/**
	 * Runs {@code marking} unless the column is known to be missing, and {@code unmarked}
	 * instead when it is, or when {@code marking} finds it missing (its transaction then
	 * rolled back, as {@code marking} commits or rolls back its own).
	 */
	<T> T run(SqlWork<T> marking, SqlWork<T> unmarked) throws SQLException {
		if (this.missing) {
			return unmarked.run();
		}
		try {
			return marking.run();
		}
		catch (SQLException ex) {
			if (!undefinedColumn(ex)) {
				throw ex;
			}
			this.missing = true;
			if (this.warned.compareAndSet(false, true)) {
				logger.warn("The lock table " + this.tableName + " has no column waited, by which a release "
						+ "notifies only when somebody waits for the lock, so releases notify every time. Add it with "
						+ "ALTER TABLE " + this.tableName
						+ " ADD COLUMN IF NOT EXISTS waited BOOLEAN NOT NULL DEFAULT FALSE "
						+ "(or set distributelock.jdbc.initialize-schema=always) and restart.");
			}
			return unmarked.run();
		}
	}

	/** Whether the lock table has the column: no row, or SQLSTATE 42703. */
	LockStatement columnCheck() {
		return this.check;
	}

	/** Adds the column to a lock table created without it. */
	LockStatement columnAdd() {
		return this.add;
	}

	/** The column is there (again): the marking statements from now on. */
	void columnPresent() {
		this.missing = false;
	}

	/** Whether {@code failure} says that a column does not exist. */
	static boolean undefinedColumn(Throwable failure) {
		return failure instanceof SQLException sql && UNDEFINED_COLUMN.equals(sql.getSQLState());
	}

	/** Work on a connection. */
	@FunctionalInterface
	interface SqlWork<T> {

		T run() throws SQLException;

	}

}
