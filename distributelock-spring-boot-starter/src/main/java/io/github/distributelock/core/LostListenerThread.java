package io.github.distributelock.core;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * Runs the listeners that users give {@link io.github.distributelock.LockHandle#onLost},
 * on one daemon thread of the lock service named {@value #NAME}, started at the first
 * loss that has a listener to tell and ended after a minute without one.
 * <p>
 * Not on the thread that found the loss: that is the store client's answer thread (a
 * Lettuce event loop), where a listener that calls Redis through the application's
 * template on the same connection waits for an answer this very thread would read, or the
 * scheduler that renews every other lock, which two slow listeners (an alert sent over
 * HTTP) kept from renewing a healthy lock until it was lost too. One thread and not a
 * pool: losses are rare, a slow listener then delays only other listeners, never a lease,
 * and one thread tells the listeners of a handle in the order they were registered. Locks
 * that are never lost never start it.
 */
final class LostListenerThread implements Executor {

	static final String NAME = "distributelock-lost-listeners";

	private static final long IDLE_SECONDS = 60;

	private final AtomicReference<@Nullable ThreadPoolExecutor> executor = new AtomicReference<>();

	private volatile boolean shutDown;

	@Override
	public void execute(Runnable notification) {
		if (!this.shutDown) {
			try {
				executor().execute(notification);
				return;
			}
			catch (RejectedExecutionException ex) {
				// shutDown() came in between: told on a thread of its own below.
			}
		}
		// Only after the lock service was closed, which released all its locks: a late
		// store answer may still find one lost.
		newThread(notification).start();
	}

	private ThreadPoolExecutor executor() {
		ThreadPoolExecutor current = this.executor.get();
		if (current != null) {
			return current;
		}
		ThreadPoolExecutor created = new ThreadPoolExecutor(1, 1, IDLE_SECONDS, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), LostListenerThread::newThread);
		// Ends when idle, so that one created as shutDown() runs does not linger.
		created.allowCoreThreadTimeOut(true);
		current = this.executor.compareAndExchange(null, created);
		if (current != null) {
			created.shutdown();
			return current;
		}
		if (this.shutDown) {
			created.shutdown();
		}
		return created;
	}

	/**
	 * Lets the notifications already given run, then ends the thread; later ones each run
	 * on a thread of their own.
	 */
	void shutDown() {
		this.shutDown = true;
		ThreadPoolExecutor current = this.executor.get();
		if (current != null) {
			current.shutdown();
		}
	}

	private static Thread newThread(Runnable task) {
		Thread thread = new Thread(task, NAME);
		thread.setDaemon(true);
		return thread;
	}

}
