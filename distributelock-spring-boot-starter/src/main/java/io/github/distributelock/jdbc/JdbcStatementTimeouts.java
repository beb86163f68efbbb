package io.github.distributelock.jdbc;

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

	/** How many cancel requests go out at once; each opens a connection of its own. */
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
	private final ThreadPoolExecutor cancelling = new ThreadPoolExecutor(CANCELLING_THREADS, CANCELLING_THREADS, 30,
			TimeUnit.SECONDS, new LinkedBlockingQueue<>(), (task) -> daemon(task, "distributelock-jdbc-cancel"));

	private final WaitDeadlines deadlines = new WaitDeadlines(this.timer);

	private volatile Duration timeout = Duration.ZERO;

	JdbcStatementTimeouts(StatementBound bound) {
		this.bound = bound;
		this.timer.setKeepAliveTime(1, TimeUnit.MINUTES);
		this.timer.allowCoreThreadTimeOut(true);
		this.cancelling.allowCoreThreadTimeOut(true);
		timeout(JdbcLockBackend.Defaults.STATEMENT_TIMEOUT);
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
	 * @throws TimedOut if the statement failed because it ran past its timeout
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
				throw new TimedOut(timeout, ex);
			}
		}
		Watch watch = new Watch(statement, this.cancelling);
		this.deadlines.expireAt(watch, Deadline.after(timeout));
		try {
			return work.run(statement);
		}
		catch (SQLException ex) {
			if (watch.cancelled && QUERY_CANCELED.equals(ex.getSQLState())) {
				throw new TimedOut(timeout, ex);
			}
			throw ex;
		}
		finally {
			watch.end();
		}
	}

	/**
	 * The watch of one running statement: completed at its deadline, or when it ends.
	 * Ended normally, not exceptionally: an exceptional end builds a
	 * {@code CompletionException}, with its stack trace, for each stage that depends on
	 * it, which cost PostgreSQL's {@code tryLock} 13 us per call here.
	 */
	private static final class Watch extends CompletableFuture<Void> {

		private final PreparedStatement statement;

		private final ThreadPoolExecutor cancelling;

		private volatile boolean ended;

		private volatile boolean cancelled;

		Watch(PreparedStatement statement, ThreadPoolExecutor cancelling) {
			this.statement = statement;
			this.cancelling = cancelling;
		}

		void end() {
			this.ended = true;
			complete(null);
		}

		@Override
		public boolean complete(@Nullable Void value) {
			if (!super.complete(value)) {
				return false;
			}
			if (!this.ended) {
				this.cancelled = true;
				try {
					this.cancelling.execute(this::cancel);
				}
				catch (RejectedExecutionException ex) {
					logger.warn("Could not cancel a lock statement that ran past its timeout", ex);
				}
			}
			return true;
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

	}

	/** Runs a statement. */
	@FunctionalInterface
	interface StatementWork<T> {

		T run(PreparedStatement statement) throws SQLException;

	}

	/** A statement that failed because it ran past its timeout. */
	static final class TimedOut extends SQLTimeoutException {

		private final Duration timeout;

		TimedOut(Duration timeout, SQLException failure) {
			super(failure.getMessage(), failure.getSQLState(), failure.getErrorCode(), failure);
			this.timeout = timeout;
		}

		Duration timeout() {
			return this.timeout;
		}

	}

}
