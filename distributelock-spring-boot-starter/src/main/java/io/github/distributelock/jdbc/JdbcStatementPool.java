package io.github.distributelock.jdbc;

import java.util.concurrent.Executor;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The threads of a JDBC backend that run the statements of callers that must not block:
 * bounded, as every statement holds a connection, with one queue in which renewals and
 * releases go ahead of attempts and polls. A waiter polls again every few to 200
 * milliseconds, so with thousands of non-blocking waiters the queue holds thousands of
 * polls; a renewal in line behind them all could wait past the lease it renews (a 300 ms
 * lease was lost behind the polls of 4,000 waiters on H2), and a release kept its key
 * from the next holder as long.
 */
final class JdbcStatementPool {

	private final ThreadPoolExecutor threads;

	private final AtomicLong arrivals = new AtomicLong();

	private final Executor ordinary = (task) -> execute(task, false);

	private final Executor ahead = (task) -> execute(task, true);

	JdbcStatementPool(int threads) {
		this.threads = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new PriorityBlockingQueue<>(),
				(task) -> {
					Thread thread = new Thread(task, "distributelock-jdbc");
					thread.setDaemon(true);
					return thread;
				}, (task, pool) -> {
					// The default names the pool and the queued task, not the cause.
					throw new RejectedExecutionException("The JDBC lock backend is closed");
				});
		this.threads.allowCoreThreadTimeOut(true);
	}

	/** Runs attempts and polls, in the order they come. */
	Executor ordinary() {
		return this.ordinary;
	}

	/** Runs renewals and releases ahead of the attempts and polls still queued. */
	Executor ahead() {
		return this.ahead;
	}

	/** Runs what is queued, and refuses new statements. */
	void shutdown() {
		this.threads.shutdown();
	}

	private void execute(Runnable task, boolean ahead) {
		this.threads.execute(new Queued(task, ahead, this.arrivals.getAndIncrement()));
	}

	/**
	 * A statement in the queue: renewals and releases first, each group in the order of
	 * arrival.
	 */
	private record Queued(Runnable task, boolean ahead, long arrival) implements Runnable, Comparable<Queued> {

		@Override
		public void run() {
			this.task.run();
		}

		@Override
		public int compareTo(Queued other) {
			if (this.ahead != other.ahead) {
				return this.ahead ? -1 : 1;
			}
			return Long.compare(this.arrival, other.arrival);
		}

	}

}
