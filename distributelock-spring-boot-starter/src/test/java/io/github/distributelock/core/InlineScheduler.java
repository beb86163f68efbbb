package io.github.distributelock.core;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler that starts no thread: a task to run now runs on the calling thread, and a
 * timer never fires. For a model checker, which must control every thread of the code it
 * checks, over calls that never wait for a timer (a wait time of zero, a watchdog lease
 * longer than the test).
 */
final class InlineScheduler extends AbstractExecutorService implements ScheduledExecutorService {

	private volatile boolean shutdown;

	@Override
	public void execute(Runnable command) {
		command.run();
	}

	@Override
	public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
		return new NeverDue<>(command, null);
	}

	@Override
	public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
		return new NeverDue<>(callable);
	}

	@Override
	public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
		return new NeverDue<>(command, null);
	}

	@Override
	public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
		return new NeverDue<>(command, null);
	}

	@Override
	public void shutdown() {
		this.shutdown = true;
	}

	@Override
	public List<Runnable> shutdownNow() {
		this.shutdown = true;
		return List.of();
	}

	@Override
	public boolean isShutdown() {
		return this.shutdown;
	}

	@Override
	public boolean isTerminated() {
		return this.shutdown;
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) {
		return this.shutdown;
	}

	/** A timer that is never due: it ends only when cancelled. */
	private static final class NeverDue<V> extends FutureTask<V> implements ScheduledFuture<V> {

		NeverDue(Callable<V> callable) {
			super(callable);
		}

		NeverDue(Runnable runnable, V result) {
			super(runnable, result);
		}

		@Override
		public long getDelay(TimeUnit unit) {
			return Long.MAX_VALUE;
		}

		@Override
		public int compareTo(Delayed other) {
			return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
		}

	}

}
