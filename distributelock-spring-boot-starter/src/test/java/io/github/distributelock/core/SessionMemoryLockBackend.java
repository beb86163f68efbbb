package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Locks that live as long as a session, which the test ends at will. Closing it stops the
 * thread that ends waits.
 */
public class SessionMemoryLockBackend implements SessionLockBackend, AutoCloseable {

	final Map<String, String> locks = new ConcurrentHashMap<>();

	final List<LockLossListener> listeners = new CopyOnWriteArrayList<>();

	private final AtomicLong tokens = new AtomicLong();

	/**
	 * Ends waits at their deadline, and drops the timers of those ended before it.
	 * Without an executor of its own, {@code CompletableFuture.delayedExecutor} starts a
	 * thread per wait on a machine of two cores.
	 */
	private final ScheduledThreadPoolExecutor timeouts = new ScheduledThreadPoolExecutor(1, (task) -> {
		Thread thread = new Thread(task, "session-memory-lock-backend-timeouts");
		thread.setDaemon(true);
		return thread;
	});

	/** The waits not ended yet, which {@link #close()} fails. */
	private final Set<CompletableFuture<Void>> waits = ConcurrentHashMap.newKeySet();

	/**
	 * Whether the next lock taken ends the session before its attempt is answered.
	 */
	public volatile boolean expireSessionAfterNextAcquire;

	/** Whether the next release fails as a dropped connection does, without removing. */
	public volatile boolean failNextRelease;

	public SessionMemoryLockBackend() {
		this.timeouts.setRemoveOnCancelPolicy(true);
	}

	void expireSession() {
		this.locks.clear();
		this.listeners.forEach((listener) -> listener.locksLost("session expired"));
	}

	@Override
	public String name() {
		return "session";
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		if (this.locks.putIfAbsent(claim.key(), claim.owner()) != null) {
			return CompletableFuture.completedFuture(AcquireResult.heldByAnother(null));
		}
		if (this.expireSessionAfterNextAcquire) {
			this.expireSessionAfterNextAcquire = false;
			expireSession();
		}
		return CompletableFuture.completedFuture(AcquireResult.acquired(this.tokens.incrementAndGet()));
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		return CompletableFuture.completedFuture(claim.owner().equals(this.locks.get(claim.key())));
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		if (this.failNextRelease) {
			this.failNextRelease = false;
			return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
		}
		return CompletableFuture.completedFuture(this.locks.remove(claim.key(), claim.owner()));
	}

	/** No release notification: the waiter tries again at its deadline. */
	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		CompletableFuture<Void> ended = new CompletableFuture<>();
		this.waits.add(ended);
		try {
			Future<?> timeout = this.timeouts.schedule(() -> ended.complete(null), deadline.remainingNanos(),
					TimeUnit.NANOSECONDS);
			ended.whenComplete((result, failure) -> {
				timeout.cancel(false);
				this.waits.remove(ended);
			});
		}
		catch (RejectedExecutionException ex) {
			ended.completeExceptionally(closed());
			this.waits.remove(ended);
		}
		return ended;
	}

	@Override
	public void addLossListener(LockLossListener listener) {
		this.listeners.add(listener);
	}

	@Override
	public void removeLossListener(LockLossListener listener) {
		this.listeners.remove(listener);
	}

	/** Stops the timer thread, and fails the waits it would have ended. */
	@Override
	public void close() {
		this.timeouts.shutdownNow();
		this.waits.forEach((wait) -> wait.completeExceptionally(closed()));
	}

	private static IllegalStateException closed() {
		return new IllegalStateException("The session store is closed");
	}

}
