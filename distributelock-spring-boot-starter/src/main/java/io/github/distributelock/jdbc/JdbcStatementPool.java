package io.github.distributelock.jdbc;

import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The threads of a JDBC backend that run the statements of callers that must not block:
 * bounded, as every statement holds a connection, with one queue in which renewals and
 * releases go ahead of attempts and polls. A waiter polls again every few to 200
 * milliseconds, so with thousands of non-blocking waiters the queue holds thousands of
 * polls; a renewal in line behind them all could wait past the lease it renews (a 300 ms
 * lease was lost behind the polls of 4,000 waiters on H2), and a release kept its key
 * from the next holder as long.
 * <p>
 * Going ahead is bounded: after {@value #MOST_AHEAD_IN_A_ROW} renewals and releases in a
 * row while an attempt or poll waits, the oldest of those runs next. Without the bound,
 * the renewals of tens of thousands of held locks with short leases, or the releases of
 * them all at close, could keep every attempt and poll waiting for as long as they kept
 * coming. With it, a renewal waits at most one statement longer per
 * {@value #MOST_AHEAD_IN_A_ROW} ahead of it.
 */
final class JdbcStatementPool {

	/**
	 * How many renewals and releases run one after the other while an attempt or poll
	 * waits.
	 */
	static final int MOST_AHEAD_IN_A_ROW = 16;

	private final ThreadPoolExecutor threads;

	/**
	 * Guards the two queues below. The executor is handed one turn per queued statement,
	 * and each turn takes the statement to run only when a thread is free, so the choice
	 * is made with everything that waits at that moment in view.
	 */
	private final ReentrantLock lock = new ReentrantLock();

	private final ArrayDeque<Runnable> aheadQueue = new ArrayDeque<>();

	private final ArrayDeque<Runnable> ordinaryQueue = new ArrayDeque<>();

	/**
	 * Renewals and releases taken one after the other while an attempt or poll waited.
	 */
	private int aheadInARow;

	private final Executor ordinary = (task) -> execute(task, this.ordinaryQueue);

	private final Executor ahead = (task) -> execute(task, this.aheadQueue);

	JdbcStatementPool(int threads) {
		this.threads = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				(task) -> new StatementThread(task, this), (task, pool) -> {
					// The default names the pool and the queued task, not the cause.
					throw new RejectedExecutionException("The JDBC lock backend is closed");
				});
		this.threads.allowCoreThreadTimeOut(true);
	}

	/** Runs attempts and polls, in the order they come. */
	Executor ordinary() {
		return this.ordinary;
	}

	/**
	 * Runs renewals and releases ahead of the attempts and polls still queued, up to
	 * {@value #MOST_AHEAD_IN_A_ROW} in a row.
	 */
	Executor ahead() {
		return this.ahead;
	}

	/** Whether {@code thread} is one of this pool's threads. */
	boolean runsOn(Thread thread) {
		return thread instanceof StatementThread statementThread && statementThread.pool == this;
	}

	/** Runs what is queued, and refuses new statements. */
	void shutdown() {
		this.threads.shutdown();
	}

	private void execute(Runnable task, ArrayDeque<Runnable> queue) {
		this.lock.lock();
		try {
			queue.addLast(task);
			try {
				this.threads.execute(this::runNext);
			}
			catch (RejectedExecutionException ex) {
				// No turn will take it: the lock held since it was added means it is
				// still the last.
				queue.removeLast();
				throw ex;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private void runNext() {
		next().run();
	}

	/** The statement for a turn: there is one, as each queued statement made a turn. */
	private Runnable next() {
		this.lock.lock();
		try {
			boolean ordinaryWaits = !this.ordinaryQueue.isEmpty();
			if (ordinaryWaits && (this.aheadQueue.isEmpty() || this.aheadInARow >= MOST_AHEAD_IN_A_ROW)) {
				this.aheadInARow = 0;
				return this.ordinaryQueue.removeFirst();
			}
			this.aheadInARow = ordinaryWaits ? this.aheadInARow + 1 : 0;
			return this.aheadQueue.removeFirst();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** A thread of one pool, told from those of other backends by its pool. */
	private static final class StatementThread extends Thread {

		private final JdbcStatementPool pool;

		StatementThread(Runnable task, JdbcStatementPool pool) {
			super(task, "distributelock-jdbc");
			this.pool = pool;
			setDaemon(true);
		}

	}

}
