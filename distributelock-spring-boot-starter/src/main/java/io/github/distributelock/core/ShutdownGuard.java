package io.github.distributelock.core;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.DistributeLockException;
import org.jspecify.annotations.Nullable;

/**
 * Whether the lock service is open, the acquisitions in flight and the threads blocked
 * waiting for a lock, so that {@link DefaultDistributeLock#close()} can wake the waiting
 * threads with a clear exception instead of letting them wait out their deadline, and let
 * the acquisitions in flight end while the store can still be reached.
 * <p>
 * Waking interrupts the thread, which every blocking wait answers (the local gate, and
 * {@link LockBackend#awaitRelease} by contract), so it works for every backend. The
 * interrupt is only sent while the thread is inside the wait, and is cleared again before
 * the wait returns, so it never leaks into the caller's code.
 */
final class ShutdownGuard {

	private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();

	private final AtomicInteger inFlight = new AtomicInteger();

	private final CountDownLatch drained = new CountDownLatch(1);

	private final String backend;

	private volatile boolean closed;

	ShutdownGuard(String backend) {
		this.backend = backend;
	}

	/**
	 * Runs a blocking wait for {@code key} that {@link #close()} cuts short.
	 * @throws DistributeLockException if the lock service is shut down, before or during
	 * the wait
	 */
	<T> T await(String key, BlockingWait<T> wait) throws InterruptedException {
		Waiter waiter = new Waiter(Thread.currentThread());
		this.waiting.add(waiter);
		try {
			// After registering: either close() sees this waiter, or this sees closed.
			requireOpen(key);
			return wait.run();
		}
		catch (InterruptedException | RuntimeException ex) {
			if (waiter.finish()) {
				throw shuttingDown(key, ex);
			}
			throw ex;
		}
		finally {
			this.waiting.remove(waiter);
			waiter.finish();
		}
	}

	/**
	 * Counts an acquisition in flight until {@link #exit()}.
	 * @throws DistributeLockException if the lock service is shut down
	 */
	void enter(String key) {
		this.inFlight.incrementAndGet();
		if (this.closed) {
			exit();
			throw shuttingDown(key, null);
		}
	}

	void exit() {
		if (this.inFlight.decrementAndGet() == 0 && this.closed) {
			this.drained.countDown();
		}
	}

	void requireOpen(String key) {
		if (this.closed) {
			throw shuttingDown(key, null);
		}
	}

	boolean isClosed() {
		return this.closed;
	}

	/**
	 * Refuses new acquisitions and wakes the waiting ones.
	 * @return {@code false} if already closed
	 */
	boolean close() {
		if (this.closed) {
			return false;
		}
		this.closed = true;
		for (Waiter waiter : this.waiting) {
			waiter.wake();
		}
		return true;
	}

	/**
	 * Waits, at most {@code timeout}, for the acquisitions in flight to end.
	 * @return the number still in flight
	 */
	int awaitDrained(Duration timeout) {
		if (this.inFlight.get() == 0) {
			return 0;
		}
		try {
			this.drained.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return this.inFlight.get();
	}

	DistributeLockException shuttingDown(String key, @Nullable Throwable cause) {
		return new DistributeLockException(
				"Could not acquire lock '" + key + "' in " + this.backend
						+ ": the lock service is shutting down (the application context is closing)",
				key, this.backend, cause);
	}

	@FunctionalInterface
	interface BlockingWait<T> {

		T run() throws InterruptedException;

	}

	private static final class Waiter {

		private static final int WAITING = 0;

		private static final int DONE = 1;

		private static final int WAKING = 2;

		private static final int WOKEN = 3;

		private static final int ABSORBED = 4;

		private final Thread thread;

		private final AtomicInteger state = new AtomicInteger(WAITING);

		Waiter(Thread thread) {
			this.thread = thread;
		}

		void wake() {
			if (this.state.compareAndSet(WAITING, WAKING)) {
				this.thread.interrupt();
				this.state.set(WOKEN);
			}
		}

		/**
		 * Ends the wait, on the waiting thread.
		 * @return whether it was woken by {@link #wake()}, whose interrupt is then
		 * cleared
		 */
		boolean finish() {
			if (this.state.compareAndSet(WAITING, DONE)) {
				return false;
			}
			while (this.state.get() == WAKING) {
				Thread.onSpinWait();
			}
			if (this.state.compareAndSet(WOKEN, ABSORBED)) {
				// Clears the interrupt close() sent, so it does not reach the caller's
				// code.
				Thread.interrupted();
			}
			return this.state.get() == ABSORBED;
		}

	}

}
