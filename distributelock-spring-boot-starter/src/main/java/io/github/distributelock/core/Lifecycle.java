package io.github.distributelock.core;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockServiceShutdownException;
import org.jspecify.annotations.Nullable;

/**
 * Whether the lock service is open, and the acquisitions in flight, so that
 * {@link DefaultDistributeLock#close()} can end every waiting acquisition at once with a
 * clear exception instead of letting it wait out its deadline, and let the store calls in
 * flight end while the store can still be reached.
 * <p>
 * A waiting acquisition is a future: closing completes it exceptionally, which wakes a
 * blocking caller and a non-blocking one alike, without interrupting any thread.
 */
final class Lifecycle {

	/** Each acquisition in flight, with how to end it. */
	private final Map<Object, Runnable> running = new ConcurrentHashMap<>();

	private final AtomicInteger inFlight = new AtomicInteger();

	private final CountDownLatch drained = new CountDownLatch(1);

	private final String backend;

	/** Why the lock service shuts down, as its exceptions say. */
	private volatile String reason = DefaultDistributeLock.CLOSED_DIRECTLY;

	private volatile boolean closed;

	/** Who closes: the first caller of {@link #close()}, alone. */
	private final AtomicBoolean closing = new AtomicBoolean();

	/** The thread of the first {@link #close()}, once it has begun. */
	private volatile @Nullable Thread closingThread;

	Lifecycle(String backend) {
		this.backend = backend;
	}

	/**
	 * Counts an acquisition in flight until it has settled.
	 * @throws DistributeLockException if the lock service is shut down
	 */
	void enter(Acquisition acquisition, String key) {
		enter(acquisition, key, acquisition::fail, acquisition.settled());
	}

	/**
	 * Counts an acquisition in flight until {@code settled} completes; {@code fail} ends
	 * it when the lock service shuts down, or at once if it is shut down already.
	 */
	void enter(Object acquisition, String key, Consumer<Throwable> fail, CompletableFuture<Void> settled) {
		this.inFlight.incrementAndGet();
		this.running.put(acquisition, () -> fail.accept(shuttingDown(key, null)));
		settled.whenComplete((result, failure) -> exit(acquisition));
		if (this.closed) {
			// After registering: either close() sees this acquisition, or this sees
			// closed.
			fail.accept(shuttingDown(key, null));
		}
	}

	private void exit(Object acquisition) {
		this.running.remove(acquisition);
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
	 * Refuses new acquisitions and ends the waiting ones.
	 * @param reason why, as the exceptions of those acquisitions say
	 * @return {@code false} if already closed
	 */
	boolean close(String reason) {
		if (!this.closing.compareAndSet(false, true)) {
			return false;
		}
		// Before closed is set: whoever sees it closed reads the reason.
		this.reason = reason;
		// Before the waiting acquisitions are ended: their callers' stages run on this
		// thread, and one of them may close again.
		this.closingThread = Thread.currentThread();
		this.closed = true;
		for (Runnable end : this.running.values()) {
			end.run();
		}
		if (this.inFlight.get() == 0) {
			this.drained.countDown();
		}
		return true;
	}

	/**
	 * Whether the calling thread is the one closing, so that a close it calls again (from
	 * a stage or listener the shutdown runs) must not wait for the first.
	 */
	boolean closingOnThisThread() {
		return this.closingThread == Thread.currentThread();
	}

	/**
	 * Waits, at most {@code timeout}, for the acquisitions in flight to settle.
	 * @return the number still in flight
	 */
	int awaitDrained(Duration timeout) {
		try {
			this.drained.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return this.inFlight.get();
	}

	LockServiceShutdownException shuttingDown(String key, @Nullable Throwable cause) {
		return new LockServiceShutdownException(key, this.backend, this.reason, cause);
	}

}
