package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

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
 * A server that does not answer at all (frozen, or behind a lost network) answers no end
 * of a statement either: PostgreSQL's cancel request and MySQL's {@code KILL QUERY} go
 * out on a connection of their own to the same server (MariaDB's driver leaves the
 * timeout to the server). Without the driver's socket timeout a round trip would then
 * wait until the operating system gives its connection up, hours by default; so would a
 * commit, a rollback or a change of the commit mode, which no statement timeout bounds.
 * So each operation on a borrowed connection is watched as a whole
 * ({@link JdbcOperationWatch}), with one deadline for the operation rather than one per
 * statement: a round trip still unanswered at twice the timeout has its connection
 * {@linkplain Connection#abort aborted}, which ends its read; it fails with a connection
 * error, and the connection is never lent again ({@link AbortedConnections}). pgjdbc
 * makes a statement cancelled at the timeout wait for the cancel in flight first, which
 * gives up at its {@code cancelSignalTimeout} (10 s by default). MariaDB's abort does not
 * end a read behind a server that answers nothing ({@link JdbcOperationWatch}).
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

	/**
	 * When an operation is first looked at: no round trip can come due sooner, neither a
	 * statement's cancel at the timeout nor an abort at twice the timeout.
	 */
	private volatile Duration firstDeadline = Duration.ZERO;

	/**
	 * The operations under way ({@link #watched}), by the connection they borrowed, which
	 * each statement they run names ({@link #run}).
	 */
	private final Map<Connection, JdbcOperationWatch> operations = new ConcurrentHashMap<>();

	/** Keeps a connection whose abort was started from being lent again. */
	private final AbortedConnections abortedConnections;

	JdbcStatementTimeouts(StatementBound bound) {
		this(bound, AbortedConnections.AWAITED);
	}

	JdbcStatementTimeouts(StatementBound bound, AbortedConnections abortedConnections) {
		this.bound = bound;
		this.abortedConnections = abortedConnections;
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
		Duration rounded = Duration.ofSeconds(timeout.getSeconds() + ((timeout.getNano() > 0) ? 1 : 0));
		this.firstDeadline = (this.bound == StatementBound.CANCEL) ? rounded : rounded.multipliedBy(2);
		this.timeout = rounded;
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
	 * Runs {@code work}, an operation on {@code connection}, watched from its first round
	 * trip to its last ({@link JdbcOperationWatch}): the statements it runs through
	 * {@link #run(PreparedStatement, StatementWork)}, and what goes between and after
	 * them on the connection (a change of the commit mode, the commit or rollback). Not
	 * on MariaDB and MySQL where the driver's socket timeout bounds each round trip
	 * already (the connection's network timeout): their statements are bounded by the
	 * driver, and such an operation costs nothing more than it did before the watch.
	 * @throws JdbcStatementTimedOut if it failed because it ran past its timeout, or as
	 * its connection was aborted
	 */
	<T> T watched(Connection connection, String task, JdbcLockRepository.ConnectionWork<T> work) throws SQLException {
		Duration timeout = this.timeout;
		if (timeout.isZero() || this.bound == StatementBound.NONE
				|| (this.bound == StatementBound.QUERY_TIMEOUT && connection.getNetworkTimeout() > 0)) {
			return work.run(connection);
		}
		JdbcOperationWatch watch = new JdbcOperationWatch(this, connection, task, timeout.toNanos());
		this.operations.compute(connection, watch);
		try {
			watch.start(this.firstDeadline);
			return work.run(connection);
		}
		catch (SQLException ex) {
			// Also a statement cancelled at the timeout, whose rollback was then aborted.
			if (watch.aborted() && !(ex instanceof JdbcStatementTimedOut timedOut && timedOut.aborted())) {
				throw new JdbcStatementTimedOut(timeout, true, ex);
			}
			throw ex;
		}
		finally {
			watch.end();
			restore(connection, watch);
		}
	}

	/**
	 * Makes the nearest watch that {@code ended} shadowed and that has not ended the
	 * connection's watch again, if {@code ended} is still the connection's: threads that
	 * share a connection (a {@code SingleConnectionDataSource}) end their operations in
	 * any order, and one that ends while another thread's shadows it is passed over by
	 * that thread's restore.
	 */
	private void restore(Connection connection, JdbcOperationWatch ended) {
		JdbcOperationWatch leaving = ended;
		for (;;) {
			JdbcOperationWatch live = leaving.outer();
			while (live != null && live.ended()) {
				live = live.outer();
			}
			boolean left = (live != null) ? this.operations.replace(connection, leaving, live)
					: this.operations.remove(connection, leaving);
			if (!left || live == null || !live.ended()) {
				return;
			}
			// It ended as it was restored, and its own restore may have found another
			// watch in its place: taken out as it would have been.
			leaving = live;
		}
	}

	/**
	 * Runs {@code work} on {@code statement}, prepared on {@code connection}, ended if it
	 * runs past the timeout, as a round trip of the operation on that connection
	 * ({@link #watched}), or of one of its own. The connection is the one the operation
	 * borrowed, not {@code statement.getConnection()}, which a proxy may answer with the
	 * connection underneath, where the operation's watch would not find the statement and
	 * would time the whole operation as one round trip.
	 * @throws JdbcStatementTimedOut if the statement failed because it ran past its
	 * timeout
	 */
	<T> T run(Connection connection, PreparedStatement statement, StatementWork<T> work) throws SQLException {
		Duration timeout = this.timeout;
		if (timeout.isZero() || this.bound == StatementBound.NONE) {
			return work.run(statement);
		}
		JdbcOperationWatch watch = this.operations.get(connection);
		if (watch == null) {
			return (this.bound == StatementBound.QUERY_TIMEOUT) ? runBoundByDriver(statement, work, timeout)
					: watched(connection, "a lock statement", (watchedConnection) -> run(connection, statement, work));
		}
		int trip = watch.enter(statement);
		try {
			return work.run(statement);
		}
		catch (SQLException ex) {
			boolean aborted = watch.aborted();
			if (aborted || ((this.bound == StatementBound.QUERY_TIMEOUT) ? ex instanceof SQLTimeoutException
					: watch.cancelled(trip) && QUERY_CANCELED.equals(ex.getSQLState()))) {
				throw new JdbcStatementTimedOut(timeout, aborted, ex);
			}
			throw ex;
		}
		finally {
			watch.leave();
		}
	}

	/** Runs a statement that only the driver's timeouts bound. */
	private static <T> T runBoundByDriver(PreparedStatement statement, StatementWork<T> work, Duration timeout)
			throws SQLException {
		try {
			return work.run(statement);
		}
		catch (SQLTimeoutException ex) {
			throw new JdbcStatementTimedOut(timeout, false, ex);
		}
	}

	/** The watch of the operation under way on {@code connection}, if any. */
	@Nullable JdbcOperationWatch watching(Connection connection) {
		return this.operations.get(connection);
	}

	WaitDeadlines deadlines() {
		return this.deadlines;
	}

	/** Whether a statement is cancelled at the timeout from here. */
	boolean cancels() {
		return this.bound == StatementBound.CANCEL;
	}

	/** Sends a cancel request, off the timer's thread. */
	void cancel(Runnable cancel) {
		submit(this.cancelling, cancel);
	}

	/**
	 * Keeps {@code connection}, whose abort was started, from being lent again, if its
	 * pool can be told ({@link AbortedConnections}).
	 * @return whether it was
	 */
	boolean evict(Connection connection, String task) {
		return this.abortedConnections.evict(connection, task);
	}

	/** Aborts a connection, off the timer's thread and apart from the cancels. */
	void abort(Runnable abort) {
		submit(this.aborting, abort);
	}

	private void submit(ThreadPoolExecutor executor, Runnable task) {
		try {
			executor.execute(task);
		}
		catch (RejectedExecutionException ex) {
			logger.warn("Could not end a lock operation that ran past its timeout", ex);
		}
	}

	/** Runs a statement. */
	@FunctionalInterface
	interface StatementWork<T> {

		T run(PreparedStatement statement) throws SQLException;

	}

}
