package io.github.distributelock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.distributelock.LockHandle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a key in the store by this JVM, shared by the handles of its
 * reentrant entries: the hold count, the lease, the loss, and the release in the store
 * when the last handle is closed.
 */
final class HeldLock {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private static final int HELD = 0;

	private static final int LOST = 1;

	private static final int RELEASED = 2;

	final String key;

	final LockBackend.Claim claim;

	final long fencingToken;

	final Instant acquiredAt = Instant.now();

	/** Who may re-enter: the thread that took it, or {@code null} for none. */
	final @Nullable Object reentrancyOwner;

	final Lease lease;

	final LockTracker tracker;

	private final Parts parts;

	private final LocalLocks.Slot slot;

	private final long acquiredAtNanos;

	private final AtomicInteger holds = new AtomicInteger(1);

	private final AtomicInteger state = new AtomicInteger(HELD);

	private final List<LostListener> lostListeners = new CopyOnWriteArrayList<>();

	HeldLock(Parts parts, LocalLocks.Slot slot, LockBackend.Claim claim, long fencingToken,
			@Nullable Object reentrancyOwner, Lease lease, LockTracker tracker, long attemptStartNanos) {
		this.parts = parts;
		this.slot = slot;
		this.key = claim.key();
		this.claim = claim.on(null);
		this.fencingToken = fencingToken;
		this.reentrancyOwner = reentrancyOwner;
		this.lease = lease;
		this.tracker = tracker;
		this.acquiredAtNanos = attemptStartNanos;
	}

	String owner() {
		return this.claim.owner();
	}

	LockKind kind() {
		return this.claim.kind();
	}

	/** How many reentrant holds are open. */
	int holds() {
		return Math.max(0, this.holds.get());
	}

	boolean isHeld() {
		return this.state.get() == HELD && !this.lease.ranOut();
	}

	boolean isSuspect() {
		return this.parts.losses().atRisk();
	}

	/** Takes one more reentrant hold for this owner, if it still holds the lock. */
	boolean reenter(Object owner) {
		if (this.reentrancyOwner != owner || !isHeld()) {
			return false;
		}
		int current;
		do {
			current = this.holds.get();
			if (current <= 0) {
				return false;
			}
		}
		while (!this.holds.compareAndSet(current, current + 1));
		return true;
	}

	LockHandle newHandle() {
		return new Handle(this);
	}

	CallerRuns callerRuns() {
		return this.parts.store().callerRuns();
	}

	void addLostListener(LockHandle handle, Consumer<LockHandle> listener) {
		this.lostListeners.add(new LostListener(handle, listener));
		if (this.state.get() == LOST) {
			notifyLost();
		}
	}

	/** Releases one reentrant hold; the store is released with the last one. */
	CompletableFuture<Boolean> releaseHold(@Nullable Executor callerExecutor) {
		return (this.holds.decrementAndGet() > 0) ? CompletableFuture.completedFuture(true)
				: releaseAll(callerExecutor);
	}

	/**
	 * Releases the lock in the store, whatever the number of holds.
	 * @param callerExecutor the thread of a caller that waits for the release anyway, or
	 * {@code null}
	 * @return whether it was still held; exceptionally if the store failed (the release
	 * is retried in the background) or it was lost and losses are to be thrown
	 */
	CompletableFuture<Boolean> releaseAll(@Nullable Executor callerExecutor) {
		this.holds.set(0);
		int previous = this.state.getAndSet(RELEASED);
		if (previous == RELEASED) {
			return CompletableFuture.completedFuture(false);
		}
		this.parts.watchdog().unwatch(this);
		LockBackend.Claim release = this.claim.on(callerExecutor);
		Executor continuation = (callerExecutor != null) ? callerExecutor : Runnable::run;
		return this.parts.store().release(release, this.lease.endNanos()).handleAsync((releasedInStore, failure) -> {
			this.slot.leave(this);
			if (failure != null) {
				this.tracker.releaseFailed(failure);
				released();
				throw StoreCalls.asUnchecked(failure);
			}
			boolean lost = !releasedInStore || previous == LOST;
			if (lost && previous == HELD) {
				this.parts.losses().lost(this, "it was no longer held in the store at release");
				notifyLost();
			}
			released();
			if (lost) {
				this.parts.losses().lostAtRelease(this.key);
				return false;
			}
			return true;
		}, continuation);
	}

	/** Reports the end of the hold, once, whether or not the store answered. */
	private void released() {
		Duration held = Duration.ofNanos(System.nanoTime() - this.acquiredAtNanos);
		this.tracker.released();
		if (logger.isDebugEnabled()) {
			logger.debug("Released lock '" + this.key + "' in " + this.parts.store().name() + " after holding it "
					+ held.toMillis() + " ms (fencing token " + this.fencingToken + ")");
		}
	}

	void markLost(String reason) {
		if (this.state.compareAndSet(HELD, LOST)) {
			this.parts.watchdog().unwatch(this);
			// The store no longer protects this key for us: let this JVM's waiters
			// compete.
			this.slot.leave(this);
			this.parts.losses().lost(this, reason);
			notifyLost();
		}
	}

	private void notifyLost() {
		for (LostListener lostListener : this.lostListeners) {
			if (this.lostListeners.remove(lostListener)) {
				try {
					lostListener.listener.accept(lostListener.handle);
				}
				catch (RuntimeException ex) {
					logger.warn("Lost-lock listener for '" + this.key + "' failed", ex);
				}
			}
		}
	}

	/**
	 * The engine's parts a held lock works with.
	 */
	record Parts(StoreCalls store, Watchdog watchdog, Losses losses) {
	}

	private record LostListener(LockHandle handle, Consumer<LockHandle> listener) {
	}

}
