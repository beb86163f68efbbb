package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BiFunction;

import io.github.distributelock.core.Deadline;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The watch of one operation on a borrowed connection ({@link JdbcStatementTimeouts}),
 * from its first round trip to its last. Each round trip (a statement, or what goes
 * between and after the statements: a change of the commit mode, the commit or rollback)
 * may take the statement timeout; a statement still running then is cancelled where the
 * dialect cancels from outside ({@link JdbcLockDialect.StatementBound#CANCEL}), and a
 * round trip still unanswered at twice the timeout has its connection
 * {@linkplain Connection#abort aborted}, which ends its read: a server that answers
 * nothing (frozen, or behind a lost network) answers no cancel either, and would keep the
 * operation until the operating system gives the connection up, hours by default.
 * <p>
 * One deadline is set when the operation begins, and none per round trip: an operation
 * that ends in time sets no other. At that deadline the watch looks at the round trip in
 * progress and sets the next one, no later than a round trip that begins then could come
 * due. Each deadline is a {@link Check}, completed normally, not exceptionally: an
 * exceptional end builds a {@code CompletionException}, with its stack trace, for each
 * stage that depends on it, which cost PostgreSQL's {@code tryLock} 13 us per call here.
 * <p>
 * A connection whose abort was started is never lent again ({@link AbortedConnections}):
 * the abort may still run as the operation ends, or have closed the connection under a
 * last round trip that was answered.
 * <p>
 * It is its own function for the connection map's compute ({@link #apply}), which a bound
 * method reference would cost an object per operation for.
 */
final class JdbcOperationWatch implements BiFunction<Connection, JdbcOperationWatch, JdbcOperationWatch> {

	private static final Log logger = LogFactory.getLog(JdbcOperationWatch.class);

	private static final int RUNNING = 0;

	private static final int ENDED = 1;

	private static final int ABORTING = 2;

	/** How soon to look again at a round trip that began or ended just as it was due. */
	private static final long RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final AtomicIntegerFieldUpdater<JdbcOperationWatch> STATE = AtomicIntegerFieldUpdater
		.newUpdater(JdbcOperationWatch.class, "state");

	private final JdbcStatementTimeouts timeouts;

	private final Connection connection;

	/** What the operation does, for the log. */
	private final String task;

	private final long timeoutNanos;

	/**
	 * How often a round trip began or ended, twice: odd while {@link #statement} and
	 * {@link #since} change, so that the timer reads the two of one round trip. Written
	 * by the operation's thread only.
	 */
	private volatile int changes;

	/** The statement in progress, or {@code null} between statements. */
	private volatile @Nullable PreparedStatement statement;

	/** When the statement in progress began, or the last one ended. */
	private volatile long since;

	/** The {@link #changes} of the statement cancelled last, or -1. */
	private volatile int cancelled = -1;

	private volatile int state;

	private volatile boolean aborted;

	/**
	 * Set as the operation ends, before its watch stops being the connection's: an
	 * operation of another thread on the same connection restores no ended watch.
	 */
	private volatile boolean ended;

	/**
	 * The watch this one shadows on its connection: another thread's operation on a
	 * shared connection. Written as this watch becomes the connection's, in the map's
	 * compute, so that a watch that later shadows this one reads it.
	 */
	private @Nullable JdbcOperationWatch outer;

	/** Set by the abort before it takes the operation, counted down once it is done. */
	private volatile @Nullable CountDownLatch abortDone;

	/** The deadline set last, ended with the operation so that the timer forgets it. */
	private volatile @Nullable Check armed;

	JdbcOperationWatch(JdbcStatementTimeouts timeouts, Connection connection, String task, long timeoutNanos) {
		this.timeouts = timeouts;
		this.connection = connection;
		this.task = task;
		this.timeoutNanos = timeoutNanos;
	}

	/** Sets the first deadline, as the operation begins. */
	void start(Duration firstDeadline) {
		this.since = System.nanoTime();
		Check first = new Check(this);
		this.armed = first;
		this.timeouts.deadlines().expireAt(first, Deadline.after(firstDeadline));
	}

	/**
	 * A statement begins.
	 * @return what tells it from the other statements of the operation
	 */
	int enter(PreparedStatement statement) {
		int changes = this.changes;
		this.changes = changes + 1;
		this.statement = statement;
		this.since = System.nanoTime();
		this.changes = changes + 2;
		return changes + 2;
	}

	/** The statement in progress ended: what follows on the connection is watched too. */
	void leave() {
		int changes = this.changes;
		this.changes = changes + 1;
		this.statement = null;
		this.since = System.nanoTime();
		this.changes = changes + 2;
	}

	/** Whether the statement that {@link #enter} told so was cancelled. */
	boolean cancelled(int statement) {
		return this.cancelled == statement;
	}

	/** Whether the operation's connection was aborted. */
	boolean aborted() {
		return this.aborted;
	}

	/** Whether the operation ended. */
	boolean ended() {
		return this.ended;
	}

	/**
	 * Becomes the connection's watch over {@code shadowed}, as the connection map's
	 * compute function.
	 */
	@Override
	public JdbcOperationWatch apply(Connection connection, @Nullable JdbcOperationWatch shadowed) {
		this.outer = shadowed;
		return this;
	}

	/** The watch this one shadows on its connection, if any. */
	@Nullable JdbcOperationWatch outer() {
		return this.outer;
	}

	/**
	 * The operation ended, as its connection is about to go back to the pool: one whose
	 * abort was started is evicted from it, or else given back once the abort is done, as
	 * the abort would end another caller's operation on it.
	 */
	void end() {
		this.ended = true;
		if (!STATE.compareAndSet(this, RUNNING, ENDED) && !this.timeouts.evict(this.connection, this.task)) {
			awaitAbort();
		}
		// Read after the state is set: either this ends the deadline set last, or the
		// timer sees the operation ended and sets none.
		Check armed = this.armed;
		if (armed != null) {
			armed.complete(null);
		}
	}

	/** At a deadline: ends the round trip in progress if it is due, and sets the next. */
	private void due() {
		if (this.state != RUNNING) {
			return;
		}
		long now = System.nanoTime();
		int changes = this.changes;
		PreparedStatement statement = this.statement;
		long since = this.since;
		if ((changes & 1) != 0 || changes != this.changes) {
			arm(now + RECHECK_NANOS);
			return;
		}
		long elapsed = now - since;
		if (elapsed >= 2 * this.timeoutNanos) {
			this.timeouts.abort(this::abort);
			return;
		}
		boolean cancels = this.timeouts.cancels();
		long next = since + 2 * this.timeoutNanos;
		if (cancels && statement != null && this.cancelled != changes) {
			if (elapsed >= this.timeoutNanos) {
				this.cancelled = changes;
				this.timeouts.cancel(() -> cancel(statement));
			}
			else {
				next = since + this.timeoutNanos;
			}
		}
		// A round trip that begins later comes due no sooner than this.
		long earliest = now + (cancels ? this.timeoutNanos : 2 * this.timeoutNanos);
		arm((next - earliest < 0) ? next : earliest);
	}

	private void arm(long dueNanos) {
		Check check = new Check(this);
		this.armed = check;
		// Read after armed is set: either end() ends this deadline, or this sees it
		// ended.
		if (this.state == RUNNING) {
			this.timeouts.deadlines()
				.expireAt(check, Deadline.after(Duration.ofNanos(Math.max(0, dueNanos - System.nanoTime()))));
		}
	}

	/**
	 * Cancels a statement; pgjdbc leaves one that has ended as it is, and makes the
	 * statement's thread wait for a cancel in flight.
	 */
	private void cancel(PreparedStatement statement) {
		try {
			statement.cancel();
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Could not cancel a lock statement (" + this.task + ") that ran past its timeout", ex);
		}
	}

	/**
	 * Aborts the connection, unless the operation ended meanwhile and its connection may
	 * be another caller's already. pgjdbc's and MySQL's abort close the socket, which
	 * ends the read in progress. MariaDB's, for a connection in use, first sends a
	 * {@code KILL} over a new connection (which waits for the server's greeting up to the
	 * driver's {@code connectTimeout}), then reads what is left on the socket before it
	 * closes it: that read waits for the socket's read lock, which the operation's thread
	 * holds in its own read, so behind a server that answers nothing at all this abort
	 * ends only with that read (the server answers, or the connection fails); it ends an
	 * operation whose server still answers the {@code KILL}. No public call of the driver
	 * closes the socket without that read.
	 */
	private void abort() {
		CountDownLatch done = new CountDownLatch(1);
		this.abortDone = done;
		if (!STATE.compareAndSet(this, RUNNING, ABORTING)) {
			return;
		}
		this.aborted = true;
		long seconds = TimeUnit.NANOSECONDS.toSeconds(this.timeoutNanos);
		logger.warn("A round trip of a lock operation (" + this.task + ") went unanswered for twice the statement "
				+ "timeout of " + seconds + " s (distributelock.jdbc.statement-timeout): closing its connection, as "
				+ "the database answers nothing (a frozen server, a lost network). Set the JDBC driver's socket "
				+ "timeout (socketTimeout) to end such a wait sooner.");
		try {
			this.connection.abort(Runnable::run);
		}
		catch (SQLException | RuntimeException ex) {
			logger.warn("Could not close the connection of a lock operation (" + this.task + ") that ran past its "
					+ "timeout", ex);
		}
		finally {
			done.countDown();
		}
	}

	private void awaitAbort() {
		CountDownLatch done = this.abortDone;
		if (done == null) {
			return;
		}
		try {
			if (!done.await(2 * this.timeoutNanos, TimeUnit.NANOSECONDS)) {
				logger.warn("The connection of a lock operation (" + this.task + ") that ran past its timeout was "
						+ "still being closed when the operation ended: it goes back to the pool marked closed by "
						+ "the driver, for the pool to drop");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			logger.warn("Interrupted while the connection of a lock operation (" + this.task + ") that ran past its "
					+ "timeout was being closed: it goes back to the pool marked closed by the driver, for the pool "
					+ "to drop", ex);
		}
	}

	/** A deadline of the operation: at its end, the watch looks at the round trip. */
	private static final class Check extends CompletableFuture<Void> {

		private final JdbcOperationWatch watch;

		Check(JdbcOperationWatch watch) {
			this.watch = watch;
		}

		@Override
		public boolean complete(@Nullable Void value) {
			if (!super.complete(value)) {
				return false;
			}
			this.watch.due();
			return true;
		}

	}

}
