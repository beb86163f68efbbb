package io.github.distributelock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.distributelock.LockHandle;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a key in the store by this JVM, shared by the handles of its
 * reentrant entries; released in the store when the last of them is closed.
 */
final class HeldLock {

	private static final int HELD = 0;

	private static final int LOST = 1;

	private static final int RELEASED = 2;

	final String key;

	final String owner;

	final long fencingToken;

	final Instant acquiredAt = Instant.now();

	/**
	 * The thread that may re-enter, or {@code null} for a lock owned by a caller's value.
	 */
	final @Nullable Thread reentrantThread;

	/** The fixed lease, or {@code null} when the watchdog renews it. */
	final @Nullable Duration fixedLease;

	/** The backend's loss reports counted when the attempt that took it began. */
	final long lossReportsAtAttempt;

	final LockTracker tracker;

	private final EngineContext context;

	private final KeyState keyState;

	private final long acquiredAtNanos;

	private final AtomicInteger holds = new AtomicInteger(1);

	private final AtomicInteger state = new AtomicInteger(HELD);

	private final AtomicBoolean detached = new AtomicBoolean();

	/** Whether a renewal of this lock is running or queued, so ticks never stack them. */
	private final AtomicBoolean renewing = new AtomicBoolean();

	private final List<LostListener> lostListeners = new CopyOnWriteArrayList<>();

	private volatile long leaseDeadlineNanos;

	private volatile @Nullable ScheduledFuture<?> timer;

	HeldLock(EngineContext context, KeyState keyState, String owner, AcquireResult result,
			@Nullable Thread reentrantThread, @Nullable Duration fixedLease, long attemptStartNanos,
			long lossReportsAtAttempt, LockTracker tracker) {
		this.context = context;
		this.keyState = keyState;
		this.key = keyState.key;
		this.owner = owner;
		this.fencingToken = result.fencingToken();
		this.reentrantThread = reentrantThread;
		this.fixedLease = fixedLease;
		this.tracker = tracker;
		this.acquiredAtNanos = attemptStartNanos;
		this.lossReportsAtAttempt = lossReportsAtAttempt;
		this.leaseDeadlineNanos = attemptStartNanos + storeLease().toNanos();
	}

	Duration storeLease() {
		return (this.fixedLease != null) ? this.fixedLease : this.context.watchdogLease;
	}

	private boolean leaseExpires() {
		return this.context.backend.leasesExpire();
	}

	/**
	 * Hands the lock to the watchdog when the lease is renewed automatically, or starts
	 * the expiry timer of a fixed lease, so that a lease that runs out frees this JVM's
	 * waiters even if the holder never releases.
	 */
	void start() {
		if (!leaseExpires()) {
			return;
		}
		if (this.fixedLease == null) {
			this.context.watchdog.watch(this);
		}
		else {
			this.timer = this.context.scheduler.schedule(
					() -> markLost("its fixed lease of " + this.fixedLease.toMillis() + " ms ran out"),
					Math.max(0, this.leaseDeadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
	}

	boolean isHeld() {
		return this.state.get() == HELD && (!leaseExpires() || System.nanoTime() - this.leaseDeadlineNanos < 0);
	}

	/** Takes one more reentrant hold for this thread, if it still holds the lock. */
	boolean reenter(Thread thread) {
		if (this.reentrantThread != thread || !isHeld()) {
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

	void addLostListener(LockHandle handle, Consumer<LockHandle> listener) {
		this.lostListeners.add(new LostListener(handle, listener));
		if (this.state.get() == LOST) {
			notifyLost();
		}
	}

	/** Releases one reentrant hold; the store is released with the last one. */
	boolean releaseHold() {
		return (this.holds.decrementAndGet() > 0) || releaseAll();
	}

	/** Releases the lock in the store, whatever the number of holds. */
	boolean releaseAll() {
		this.holds.set(0);
		int previous = this.state.getAndSet(RELEASED);
		if (previous == RELEASED) {
			return false;
		}
		cancelTimer();
		boolean releasedInStore;
		try {
			releasedInStore = this.context.release(this.key, this.owner, leaseEndNanos());
		}
		catch (RuntimeException ex) {
			detachLocally();
			this.tracker.releaseFailed(ex);
			released();
			throw ex;
		}
		detachLocally();
		boolean lost = !releasedInStore || previous == LOST;
		if (lost && previous == HELD) {
			this.context.lost(this, "it was no longer held in the store at release");
			notifyLost();
		}
		released();
		if (lost) {
			this.context.lostAtRelease(this.key);
			return false;
		}
		return true;
	}

	/** Reports the end of the hold, once, whether or not the store answered. */
	private void released() {
		Duration held = Duration.ofNanos(System.nanoTime() - this.acquiredAtNanos);
		this.tracker.released();
		this.context.events.released(this.key, held);
		if (this.context.log().isDebugEnabled()) {
			this.context.log()
				.debug("Released lock '" + this.key + "' in " + this.context.backend.name() + " after holding it "
						+ held.toMillis() + " ms (fencing token " + this.fencingToken + ")");
		}
	}

	/** When the lease ends in the store, or {@code null} for a store without leases. */
	private @Nullable Long leaseEndNanos() {
		return leaseExpires() ? this.leaseDeadlineNanos : null;
	}

	boolean isSuspect() {
		return this.context.locksAtRisk();
	}

	/**
	 * When the lease runs out unless renewed before, on the wall clock, or {@code null}
	 * if the store has no lease.
	 */
	@Nullable Instant leaseExpiresAt() {
		if (!leaseExpires()) {
			return null;
		}
		return Instant.now().plusNanos(this.leaseDeadlineNanos - System.nanoTime());
	}

	boolean leaseRanOut() {
		return System.nanoTime() - this.leaseDeadlineNanos >= 0;
	}

	/** Claims the next renewal for the watchdog; false while one is still running. */
	boolean startRenewal() {
		return this.renewing.compareAndSet(false, true);
	}

	void endRenewal() {
		this.renewing.set(false);
	}

	void renewAndEnd() {
		try {
			renew();
		}
		finally {
			endRenewal();
		}
	}

	private void renew() {
		if (this.state.get() != HELD) {
			return;
		}
		long start = System.nanoTime();
		boolean renewed;
		try {
			renewed = this.context.call(this.key, "renew",
					() -> this.context.backend.renew(this.key, this.owner, storeLease()));
		}
		catch (RuntimeException ex) {
			if (System.nanoTime() - this.leaseDeadlineNanos >= 0) {
				markLost("its lease ran out while renewals failed: " + ex.getMessage());
			}
			else {
				this.context.log()
					.warn("Could not renew lock '" + this.key + "' in " + this.context.backend.name()
							+ "; retrying while the lease lasts: " + ex.getMessage());
				this.tracker.renewalFailed(ex);
			}
			return;
		}
		if (renewed) {
			this.leaseDeadlineNanos = start + storeLease().toNanos();
			this.tracker.renewed();
			this.context.events.renewed(this.key);
		}
		else {
			markLost("the store no longer had it at renewal");
		}
	}

	void markLost(String reason) {
		if (this.state.compareAndSet(HELD, LOST)) {
			cancelTimer();
			// The store no longer protects this key for us: let this JVM's waiters
			// compete.
			detachLocally();
			this.context.lost(this, reason);
			notifyLost();
		}
	}

	/** Gives this JVM's gate for the key back, once, at release or loss. */
	private void detachLocally() {
		if (this.detached.compareAndSet(false, true)) {
			if (this.keyState.held == this) {
				this.keyState.held = null;
			}
			this.keyState.gate.release();
			this.context.table.leave(this.keyState);
		}
	}

	private void notifyLost() {
		for (LostListener lostListener : this.lostListeners) {
			if (this.lostListeners.remove(lostListener)) {
				try {
					lostListener.listener.accept(lostListener.handle);
				}
				catch (RuntimeException ex) {
					this.context.log().warn("Lost-lock listener for '" + this.key + "' failed", ex);
				}
			}
		}
	}

	private void cancelTimer() {
		if (this.fixedLease == null) {
			this.context.watchdog.unwatch(this);
			return;
		}
		ScheduledFuture<?> current = this.timer;
		if (current != null) {
			current.cancel(false);
		}
	}

	private record LostListener(LockHandle handle, Consumer<LockHandle> listener) {
	}

}
