package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import io.github.distributelock.core.Deadline;
import org.jspecify.annotations.Nullable;

/**
 * Bounds a lock operation's wait for the row lock of another transaction (one whose
 * client stalled, say) by the deadline of the caller that waits for it, inside the
 * statement that waits, at no round trip more. How is the dialect's to say
 * ({@link JdbcLockDialect#rowWaitBounded}, {@link JdbcLockDialect#aroundRowWait}):
 * PostgreSQL's variant sets a transaction-local {@code lock_timeout} in the statement's
 * own {@code VALUES} ({@code *-bounded.sql}); MariaDB's runs as
 * {@code SET STATEMENT innodb_lock_wait_timeout=n FOR ...}; H2, which runs in the
 * process, sets the session's {@code LOCK_TIMEOUT} around the operation and restores it;
 * MySQL does not bound it. The statement timeout would also end a statement that is slow
 * but waits for nothing, refusing a free key to a caller on a distant database; this
 * bound ends only the wait for a row.
 * <p>
 * A dialect that counts the wait in whole seconds bounds it up to
 * {@link JdbcLockDialect#longestRowWaitSeconds()}; a caller with as much time left as
 * that or as the statement timeout, or with no deadline (a hold's renewal and release),
 * runs the plain statement.
 */
final class JdbcRowLockWaits {

	/**
	 * The shortest wait for a row: a caller with no time left (a {@code tryLock} without
	 * wait, or a queued caller leaving the queue at its deadline) still waits this long,
	 * for the lock's own operations on the key hold its row for a few statements (a fair,
	 * read/write or permit operation for about five), and a shorter bound would refuse a
	 * reader a key that another reader was joining at that moment. Zero means no bound at
	 * all to PostgreSQL's {@code lock_timeout} and H2's {@code LOCK_TIMEOUT}.
	 */
	static final Duration SHORTEST_WAIT = Duration.ofMillis(100);

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
	 * waits for it, the caller has at least that long left, or the dialect cannot bound
	 * so long a wait.
	 */
	@Nullable RowWait bound(@Nullable Deadline deadline) {
		if (deadline == null) {
			return null;
		}
		long left = deadline.remainingNanos();
		Duration timeout = this.timeouts.timeout();
		if (!timeout.isZero() && left >= timeout.toNanos()) {
			return null;
		}
		long nanos = Math.max(left, SHORTEST_WAIT.toNanos());
		long seconds = (nanos + SECOND_NANOS - 1) / SECOND_NANOS;
		if (seconds > this.dialect.longestRowWaitSeconds()) {
			return null;
		}
		long millis = (nanos + 999_999) / 1_000_000;
		return new RowWait(millis, (int) Math.min(seconds, Integer.MAX_VALUE));
	}

	/**
	 * The statement of the dialect's {@code file}, with the variants that bound its wait
	 * for a row.
	 * @param plain the statement as the file has it
	 */
	Bounded bounded(String file, LockStatement plain) {
		return this.dialect.rowWaitBounded(file, plain, this.tableName);
	}

	/**
	 * {@link #bounded(String, LockStatement)} for each statement of a file: only MySQL's
	 * attempt has several, which it does not bound.
	 */
	List<Bounded> boundedAll(String file, List<LockStatement> plain) {
		return plain.stream().map((statement) -> bounded(file, statement)).toList();
	}

	/**
	 * Runs {@code work} on {@code connection} with its waits for a row bounded by
	 * {@code wait}, as the dialect bounds them around an operation (H2); with no bound,
	 * or where the statements bound themselves, {@code work} just runs.
	 */
	<T> T around(Connection connection, @Nullable RowWait wait, String key, SqlWork<T> work) throws SQLException {
		return (wait != null) ? this.dialect.aroundRowWait(connection, wait, key, work) : work.run();
	}

	/**
	 * How long one operation may wait for a row.
	 *
	 * @param millis in milliseconds, at least {@link #SHORTEST_WAIT}
	 * @param seconds in whole seconds, rounded up, at most the dialect's
	 * {@link JdbcLockDialect#longestRowWaitSeconds()}
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

		/** A statement with no variant: nothing bounds it, or something around it. */
		static Bounded plain(LockStatement plain) {
			return new Bounded(plain, null, List.of());
		}

		/**
		 * A statement whose variant takes the wait as its parameter {@code :lock_wait}.
		 */
		static Bounded byParameter(LockStatement plain, LockStatement bounded) {
			return new Bounded(plain, bounded, List.of());
		}

		/**
		 * A statement with one variant per whole second of wait: the one at index n - 1
		 * waits n seconds at most.
		 */
		static Bounded bySeconds(LockStatement plain, List<LockStatement> variants) {
			return new Bounded(plain, null, List.copyOf(variants));
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
	interface SqlWork<T> {

		T run() throws SQLException;

	}

}
