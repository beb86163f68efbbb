package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.WaitDeadlines;
import io.github.distributelock.jdbc.JdbcLockDialect.StatementBound;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Ends a lock statement that runs longer than the statement timeout, as a database kept
 * waiting for the row lock of a transaction whose client stalled would otherwise keep it:
 * on PostgreSQL, by default, until that transaction ends; on MariaDB and MySQL, 50 s.
 * <p>
 * How depends on the database ({@link StatementBound}). On PostgreSQL one timer for the
 * earliest deadline ({@link WaitDeadlines}), which a statement that ends in time sets no
 * timer for, and a {@link PreparedStatement#cancel()} at the deadline: the driver's own
 * {@code setQueryTimeout} schedules and cancels a timer task per statement, which put a
 * PostgreSQL {@code tryLock} at 140 to 250 us instead of 85 us here. On MariaDB and MySQL
 * the driver's {@code setQueryTimeout}, as a cancel from outside is a {@code KILL QUERY}
 * that could reach the connection's next statement. H2 ends the wait at its own lock
 * timeout.
 * <p>
 * A PostgreSQL server that does not answer at all (frozen, or behind a lost network)
 * answers no cancel either: the cancel request goes out on a connection of its own to the
 * same server. Without the driver's socket timeout the statement would then wait until
 * the operating system gives its connection up, hours by default. So a statement still
 * running at twice the timeout has its connection {@linkplain Connection#abort aborted},
 * which ends its read; it fails with a connection error, on which the pool drops the
 * connection. pgjdbc makes it wait for the cancel in flight first, which gives up at its
 * {@code cancelSignalTimeout} (10 s by default).
 */
final class JdbcStatementTimeouts {

	private static final Log logger = LogFactory.getLog(JdbcStatementTimeouts.class);

	/** The SQL state of a PostgreSQL statement ended by a cancel request. */
	private static final String QUERY_CANCELED = "57014";

	/**
	 * The longest timeout given to a driver: MySQL's counts it in milliseconds in an
	 * {@code int}, and a longer one failed every statement ("Negative delay").
	 */
	private static final long LONGEST_QUERY_TIMEOUT_SECONDS = Integer.MAX_VALUE / 1000;

	/**
	 * How many cancel requests, or aborts, go out at once; a cancel opens a connection.
	 */
	private static final int CANCELLING_THREADS = 4;

	private final StatementBound bound;

	/**
	 * Sets the deadlines. Its thread starts with the first and leaves after a minute
	 * without any (a pool never retires its last thread while a timer is set), so that a
	 * backend left unclosed keeps no thread, and one closed still bounds its statements
	 * in flight.
	 */
	private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
			(task) -> daemon(task, "distributelock-jdbc-statement-timeouts"));

	/**
	 * Sends the cancel requests, off the timer's thread: a cancel opens a connection, and
	 * the timer must not wait for one to serve the next deadline.
	 */
	private final ThreadPoolExecutor cancelling = pool("distributelock-jdbc-cancel");

	/**
	 * Aborts connections, apart from the cancels: a cancel into a server that does not
	 * answer waits for pgjdbc's {@code cancelSignalTimeout} (10 s by default), and the
	 * aborts it calls for must not queue behind it.
	 */
	private final ThreadPoolExecutor aborting = pool("distributelock-jdbc-abort");

	private final WaitDeadlines deadlines = new WaitDeadlines(this.timer);

	private volatile Duration timeout = Duration.ZERO;

	JdbcStatementTimeouts(StatementBound bound) {
		this.bound = bound;
		this.timer.setKeepAliveTime(1, TimeUnit.MINUTES);
		this.timer.allowCoreThreadTimeOut(true);
		timeout(JdbcLockBackend.Defaults.STATEMENT_TIMEOUT);
	}

	private static ThreadPoolExecutor pool(String name) {
		ThreadPoolExecutor pool = new ThreadPoolExecutor(CANCELLING_THREADS, CANCELLING_THREADS, 30, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), (task) -> daemon(task, name));
		pool.allowCoreThreadTimeOut(true);
		return pool;
	}

	private static Thread daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	/**
	 * Bounds each statement by {@code timeout}, rounded up to whole seconds as JDBC's
	 * statement timeouts are, or not at all when it is zero.
	 */
	void timeout(Duration timeout) {
		if (timeout.isNegative()) {
			throw new IllegalArgumentException("The statement timeout must not be negative, but is " + timeout);
		}
		this.timeout = Duration.ofSeconds(timeout.getSeconds() + ((timeout.getNano() > 0) ? 1 : 0));
	}

	Duration timeout() {
		return this.timeout;
	}

	/** Sets the driver's timeout on a statement, where the driver bounds it. */
	void prepare(PreparedStatement statement) throws SQLException {
		Duration timeout = this.timeout;
		if (this.bound == StatementBound.QUERY_TIMEOUT && !timeout.isZero()) {
			statement.setQueryTimeout((int) Math.min(timeout.getSeconds(), LONGEST_QUERY_TIMEOUT_SECONDS));
		}
	}

	/**
	 * Runs {@code work} on {@code statement}, ended if it runs past the timeout.
	 * @throws JdbcStatementTimedOut if the statement failed because it ran past its
	 * timeout
	 */
	<T> T run(PreparedStatement statement, StatementWork<T> work) throws SQLException {
		Duration timeout = this.timeout;
		if (timeout.isZero() || this.bound == StatementBound.NONE) {
			return work.run(statement);
		}
		if (this.bound == StatementBound.QUERY_TIMEOUT) {
			try {
				return work.run(statement);
			}
			catch (SQLTimeoutException ex) {
				throw new JdbcStatementTimedOut(timeout, false, ex);
			}
		}
		Watch watch = new Watch(statement, true);
		this.deadlines.expireAt(watch, Deadline.after(timeout));
		try {
			return work.run(statement);
		}
		catch (SQLException ex) {
			boolean aborted = watch.aborted();
			if (aborted || (watch.cancelled && QUERY_CANCELED.equals(ex.getSQLState()))) {
				throw new JdbcStatementTimedOut(timeout, aborted, ex);
			}
			throw ex;
		}
		finally {
			watch.end();
		}
	}

	/**
	 * The watch of one running statement: completed at its deadline, or when it ends. At
	 * the timeout it cancels the statement and watches it for as long again, as a second
	 * watch that aborts the statement's connection at its deadline. Ended normally, not
	 * exceptionally: an exceptional end builds a {@code CompletionException}, with its
	 * stack trace, for each stage that depends on it, which cost PostgreSQL's
	 * {@code tryLock} 13 us per call here.
	 */
	private final class Watch extends CompletableFuture<Void> {

		private final PreparedStatement statement;

		/**
		 * Whether the statement is cancelled at this watch's deadline, or its connection
		 * aborted.
		 */
		private final boolean cancels;

		private volatile @Nullable Watch next;

		private volatile boolean ended;

		private volatile boolean cancelled;

		private volatile boolean aborted;

		Watch(PreparedStatement statement, boolean cancels) {
			this.statement = statement;
			this.cancels = cancels;
		}

		void end() {
			this.ended = true;
			complete(null);
			Watch next = this.next;
			if (next != null) {
				next.end();
			}
		}

		boolean aborted() {
			Watch next = this.next;
			return this.aborted || (next != null && next.aborted);
		}

		@Override
		public boolean complete(@Nullable Void value) {
			if (!super.complete(value)) {
				return false;
			}
			if (!this.ended) {
				if (this.cancels) {
					this.cancelled = true;
					submit(JdbcStatementTimeouts.this.cancelling, this::cancel);
					Watch next = new Watch(this.statement, false);
					this.next = next;
					// Read after next is set: either end() ends next, or this sees it
					// ended.
					if (!this.ended) {
						JdbcStatementTimeouts.this.deadlines.expireAt(next,
								Deadline.after(JdbcStatementTimeouts.this.timeout));
					}
				}
				else {
					this.aborted = true;
					submit(JdbcStatementTimeouts.this.aborting, this::abort);
				}
			}
			return true;
		}

		private void submit(ThreadPoolExecutor executor, Runnable task) {
			try {
				executor.execute(task);
			}
			catch (RejectedExecutionException ex) {
				logger.warn("Could not end a lock statement that ran past its timeout", ex);
			}
		}

		/**
		 * Cancels the statement; pgjdbc leaves one that has just ended as it is, and
		 * makes the statement's thread wait for a cancel in flight.
		 */
		private void cancel() {
			try {
				this.statement.cancel();
			}
			catch (SQLException | RuntimeException ex) {
				logger.warn("Could not cancel a lock statement that ran past its timeout", ex);
			}
		}

		/**
		 * Aborts the statement's connection, unless the statement ended meanwhile and its
		 * connection may be another caller's already. pgjdbc's abort closes the socket,
		 * here.
		 */
		private void abort() {
			if (this.ended) {
				return;
			}
			logger.warn("A lock statement still ran at twice the statement timeout of " + timeout().toSeconds()
					+ " s (distributelock.jdbc.statement-timeout): closing its connection, as the database answers "
					+ "neither the statement nor its end at the timeout (a frozen server, a lost network). Set the "
					+ "driver's socket timeout to end such a statement sooner.");
			try {
				Connection connection = this.statement.getConnection();
				connection.abort(Runnable::run);
			}
			catch (SQLException | RuntimeException ex) {
				logger.warn("Could not close the connection of a lock statement that ran past its timeout", ex);
			}
		}

	}

	/** Runs a statement. */
	@FunctionalInterface
	interface StatementWork<T> {

		T run(PreparedStatement statement) throws SQLException;

	}

}
