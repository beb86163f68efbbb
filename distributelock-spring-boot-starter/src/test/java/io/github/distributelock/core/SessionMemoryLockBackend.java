package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Locks that live as long as a session, which the test ends at will.
 */
public class SessionMemoryLockBackend implements SessionLockBackend {

	final Map<String, String> locks = new ConcurrentHashMap<>();

	final List<LockLossListener> listeners = new CopyOnWriteArrayList<>();

	private final AtomicLong tokens = new AtomicLong();

	/**
	 * Whether the next lock taken ends the session before its attempt is answered.
	 */
	public volatile boolean expireSessionAfterNextAcquire;

	/** Whether the next release fails as a dropped connection does, without removing. */
	public volatile boolean failNextRelease;

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
		return CompletableFuture.runAsync(() -> {
		}, CompletableFuture.delayedExecutor(deadline.remainingNanos(), TimeUnit.NANOSECONDS));
	}

	@Override
	public void addLossListener(LockLossListener listener) {
		this.listeners.add(listener);
	}

	@Override
	public void removeLossListener(LockLossListener listener) {
		this.listeners.remove(listener);
	}

}
