package io.github.distributelock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.WaitDeadlines;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Cancels a lock statement that runs longer than the statement timeout, as a database
 * kept waiting for the row lock of a transaction whose client stalled would otherwise
 * keep it: on PostgreSQL, by default, until that transaction ends.
 * <p>
 * One timer for the earliest deadline ({@link WaitDeadlines}), which a statement that
 * ends in time sets no timer for, and {@link PreparedStatement#cancel()} at the deadline:
 * the drivers' own {@code setQueryTimeout} schedules and cancels a timer task per
 * statement (which put a PostgreSQL {@code tryLock} at 140 to 250 us instead of 85 us
 * here), and on H2 is a setting of the session that would stay on the application's
 * pooled connection.
 */
final class JdbcStatementTimeouts {

	private static final Log logger = LogFactory.getLog(JdbcStatementTimeouts.class);

	/**
	 * Serves deadlines up to this far away: the timer's thread outlives every pending
	 * one.
	 */
	private static final Duration SHORTEST_KEEP_ALIVE = Duration.ofMinutes(1);

	/**
	 * The thread that cancels; started by the first deadline, and gone after a longer
	 * idle time than any statement may run, so that a backend left unclosed keeps no
	 * thread, and one closed still bounds its statements in flight.
	 */
	private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
		Thread thread = new Thread(task, "distributelock-jdbc-statement-timeouts");
		thread.setDaemon(true);
		return thread;
	});

	private final WaitDeadlines deadlines = new WaitDeadlines(this.timer);

	private volatile Duration timeout = Duration.ZERO;

	JdbcStatementTimeouts() {
		timeout(JdbcLockBackend.Defaults.STATEMENT_TIMEOUT);
		this.timer.allowCoreThreadTimeOut(true);
	}

	/**
	 * Bounds each statement by {@code timeout}, rounded up to whole seconds as JDBC's
	 * statement timeouts are, or not at all when it is zero.
	 */
	void timeout(Duration timeout) {
		if (timeout.isNegative()) {
			throw new IllegalArgumentException("The statement timeout must not be negative, but is " + timeout);
		}
		long seconds = timeout.getSeconds() + ((timeout.getNano() > 0) ? 1 : 0);
		Duration rounded = Duration.ofSeconds(seconds);
		// An idle timer thread leaves after its keep-alive even with a timer set: it must
		// not leave before the latest deadline it may have to serve.
		Duration keepAlive = ((rounded.compareTo(SHORTEST_KEEP_ALIVE) > 0) ? rounded : SHORTEST_KEEP_ALIVE)
			.plusSeconds(1);
		this.timer.setKeepAliveTime(keepAlive.toNanos(), TimeUnit.NANOSECONDS);
		this.timeout = rounded;
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Runs {@code work} on {@code statement}, which is cancelled if it runs past the
	 * timeout.
	 * @throws TimedOut if the statement failed after it was cancelled for its timeout
	 */
	<T> T run(PreparedStatement statement, StatementWork<T> work) throws SQLException {
		Duration timeout = this.timeout;
		if (timeout.isZero()) {
			return work.run(statement);
		}
		Watch watch = new Watch(statement);
		this.deadlines.expireAt(watch, Deadline.after(timeout));
		try {
			return work.run(statement);
		}
		catch (SQLException ex) {
			if (watch.cancelled) {
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

		private volatile boolean ended;

		private volatile boolean cancelled;

		Watch(PreparedStatement statement) {
			this.statement = statement;
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
				cancel();
			}
			return true;
		}

		/**
		 * Cancels the statement; one that has just ended is left as it is by the drivers,
		 * which cancel only a statement in progress.
		 */
		private void cancel() {
			this.cancelled = true;
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

	/** A statement that failed after it was cancelled for running past its timeout. */
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
