package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.core.Deadline;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Bounds a lock operation's wait for the row lock of another transaction (one whose
 * client stalled, say) by the deadline of the caller that waits for it, inside the
 * statement that waits, at no round trip more: PostgreSQL's variant sets a
 * transaction-local {@code lock_timeout} in the statement's own {@code VALUES}
 * ({@code *-bounded.sql}); MariaDB's runs as
 * {@code SET STATEMENT innodb_lock_wait_timeout=n FOR ...}; H2, which runs in the
 * process, sets the session's {@code LOCK_TIMEOUT} around the operation and restores it.
 * The statement timeout would also end a statement that is slow but waits for nothing,
 * refusing a free key to a caller on a distant database; this bound ends only the wait
 * for a row.
 * <p>
 * MariaDB counts the wait in whole seconds and takes it as a literal: its variants are a
 * fixed set made once, one per second up to {@link #LONGEST_SECONDS}, chosen by the time
 * left rounded up; no time is ever formatted into a statement. A caller with as much time
 * left as the statement timeout, or with no deadline (a hold's renewal and release), runs
 * the plain statement.
 * <p>
 * <b>Note:</b> MySQL is not bounded so, and waits as long as the statement timeout lets
 * it: it sets {@code innodb_lock_wait_timeout} for a whole session only (8.0.12 refuses
 * the hint {@code SET_VAR(innodb_lock_wait_timeout=n)}: "cannot be set using SET_VAR
 * hint"), and a {@code SET} before and after each operation would cost two round trips,
 * on the application's pooled connection.
 */
final class JdbcRowLockWaits {

	private static final Log logger = LogFactory.getLog(JdbcRowLockWaits.class);

	/**
	 * The shortest wait for a row: a caller with no time left (a {@code tryLock} without
	 * wait, or a queued caller leaving the queue at its deadline) still waits this long,
	 * for the lock's own operations on the key hold its row for a few statements (a fair,
	 * read/write or permit operation for about five), and a shorter bound would refuse a
	 * reader a key that another reader was joining at that moment. Zero means no bound at
	 * all to PostgreSQL's {@code lock_timeout} and H2's {@code LOCK_TIMEOUT}.
	 */
	static final Duration SHORTEST_WAIT = Duration.ofMillis(100);

	/**
	 * The longest bounded wait of MariaDB: a caller with more time left runs the plain
	 * statement, bounded by the statement timeout (10 s by default).
	 */
	static final int LONGEST_SECONDS = 30;

	private static final long SECOND_NANOS = Duration.ofSeconds(1).toNanos();

	private final JdbcLockDialect dialect;

	private final String tableName;

	private final JdbcStatementTimeouts timeouts;

	JdbcRowLockWaits(JdbcLockDialect dialect, String tableName, JdbcStatementTimeouts timeouts) {
		this.dialect = dialect;
		this.tableName = tableName;
		this.timeouts = timeouts;
	}

	/**
	 * How long an operation of a caller that waits until {@code deadline} may wait for a
	 * row, or {@code null} for as long as the statement timeout lets it: when no caller
	 * waits for it, or the caller has at least that long left.
	 */
	@Nullable RowWait bound(@Nullable Deadline deadline) {
		if (deadline == null || "mysql".equals(this.dialect.name())) {
			return null;
		}
		long left = deadline.remainingNanos();
		Duration timeout = this.timeouts.timeout();
		if (!timeout.isZero() && left >= timeout.toNanos()) {
			return null;
		}
		long nanos = Math.max(left, SHORTEST_WAIT.toNanos());
		long seconds = (nanos + SECOND_NANOS - 1) / SECOND_NANOS;
		if (seconds > LONGEST_SECONDS && "mariadb".equals(this.dialect.name())) {
			return null;
		}
		long millis = (nanos + 999_999) / 1_000_000;
		return new RowWait(millis, (int) Math.min(seconds, LONGEST_SECONDS));
	}

	/**
	 * The statement of the dialect's {@code file}, with the variants that bound its wait
	 * for a row.
	 * @param plain the statement as the file has it
	 */
	Bounded bounded(String file, LockStatement plain) {
		return switch (this.dialect.name()) {
			case "postgresql" -> new Bounded(plain,
					LockStatement.load(this.dialect, file.replaceFirst("\\.sql$", "-bounded.sql"), this.tableName),
					List.of());
			case "mariadb" -> new Bounded(plain, null,
					variants(plain, (sql, n) -> "SET STATEMENT innodb_lock_wait_timeout=" + n + " FOR " + sql));
			default -> new Bounded(plain, null, List.of());
		};
	}

	/**
	 * {@link #bounded(String, LockStatement)} for each statement of a file: only MySQL's
	 * attempt has several, which it does not bound.
	 */
	List<Bounded> boundedAll(String file, List<LockStatement> plain) {
		return plain.stream().map((statement) -> bounded(file, statement)).toList();
	}

	/**
	 * Runs {@code work} on {@code connection} with H2's {@code LOCK_TIMEOUT} set to
	 * {@code wait} when that is shorter, restored after it; on the other databases the
	 * statements bound themselves, and {@code work} just runs.
	 */
	<T> T around(Connection connection, @Nullable RowWait wait, String key, SqlWork<T> work) throws SQLException {
		if (wait == null || !"h2".equals(this.dialect.name())) {
			return work.run();
		}
		int previous;
		try (PreparedStatement read = connection.prepareStatement("SELECT LOCK_TIMEOUT()");
				ResultSet rs = read.executeQuery()) {
			previous = rs.next() ? rs.getInt(1) : 0;
		}
		if (previous > 0 && previous <= wait.millis()) {
			return work.run();
		}
		setLockTimeout(connection, (int) Math.min(wait.millis(), Integer.MAX_VALUE));
		try {
			return work.run();
		}
		finally {
			try {
				setLockTimeout(connection, previous);
			}
			catch (SQLException ex) {
				// The connection goes back to the pool with the short timeout: closed
				// instead, so that no other statement of the application gets it.
				logger.warn("Could not restore H2's LOCK_TIMEOUT after an operation on lock '" + key
						+ "'; closing its connection", ex);
				abort(connection, key);
			}
		}
	}

	private static void abort(Connection connection, String key) {
		try {
			connection.abort(Runnable::run);
		}
		catch (SQLException ex) {
			logger.warn("Could not close the connection of an operation on lock '" + key + "'", ex);
		}
	}

	private static void setLockTimeout(Connection connection, int millis) throws SQLException {
		try (PreparedStatement set = connection.prepareStatement("SET LOCK_TIMEOUT ?")) {
			set.setInt(1, millis);
			set.execute();
		}
	}

	private static List<LockStatement> variants(LockStatement plain, Variant variant) {
		List<LockStatement> variants = new ArrayList<>(LONGEST_SECONDS);
		for (int seconds = 1; seconds <= LONGEST_SECONDS; seconds++) {
			int n = seconds;
			variants.add(plain.edited((sql) -> variant.text(sql, n)));
		}
		return List.copyOf(variants);
	}

	/**
	 * How long one operation may wait for a row.
	 *
	 * @param millis in milliseconds, at least {@link #SHORTEST_WAIT}
	 * @param seconds in whole seconds, rounded up, at most {@link #LONGEST_SECONDS}
	 */
	record RowWait(long millis, int seconds) {

		/** As PostgreSQL's {@code lock_timeout} reads it: {@code 300ms}. */
		String text() {
			return this.millis + "ms";
		}

	}

	/** A statement that may wait for a row, and its variants that bound the wait. */
	static final class Bounded {

		private final LockStatement plain;

		/** PostgreSQL's: one statement, bounded by its parameter {@code :lock_wait}. */
		private final @Nullable LockStatement byParameter;

		/** MariaDB's: the one at index n - 1 waits n seconds at most. */
		private final List<LockStatement> bySeconds;

		private Bounded(LockStatement plain, @Nullable LockStatement byParameter, List<LockStatement> bySeconds) {
			this.plain = plain;
			this.byParameter = byParameter;
			this.bySeconds = bySeconds;
		}

		/**
		 * The statement to run: the plain one with no bound, else the variant for
		 * {@code wait} (the plain one on H2, bounded around it).
		 */
		LockStatement waiting(@Nullable RowWait wait) {
			if (wait == null) {
				return this.plain;
			}
			if (this.byParameter != null) {
				return this.byParameter;
			}
			return this.bySeconds.isEmpty() ? this.plain : this.bySeconds.get(wait.seconds() - 1);
		}

		/** The statements to run, each as {@link #waiting(RowWait)} has it. */
		static List<LockStatement> waiting(List<Bounded> statements, @Nullable RowWait wait) {
			if (statements.size() == 1) {
				return List.of(statements.get(0).waiting(wait));
			}
			return statements.stream().map((statement) -> statement.waiting(wait)).toList();
		}

	}

	@FunctionalInterface
	private interface Variant {

		String text(String sql, int seconds);

	}

	@FunctionalInterface
	interface SqlWork<T> {

		T run() throws SQLException;

	}

}
