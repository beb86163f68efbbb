package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The release of a {@link HeldLock} in the store once its hold ends: after the renewals
 * in flight, handed over to a caller of this JVM that waits for the key, or left there
 * for the rest of a minimum hold; and the end of the hold in this JVM once the store
 * answered. It owns the state of that release; the hold gives it the key, the lease and
 * the engine's parts through the hooks below.
 * <p>
 * A lock with a minimum hold that is closed before it has passed is given up in this JVM
 * but left in the store for the rest of it: on a store with leases by an owner-checked
 * renewal for that rest (so the lock also ends then if this JVM dies), on a store without
 * leases by a release sent when it has passed.
 * <p>
 * A superclass rather than an object of its own: a held lock is made at every
 * acquisition, and its release is then no further allocation. Its hooks and
 * {@link #release} are for {@link HeldLock} alone, which changes the hold's state before
 * it calls them (Java has no narrower visibility for them in one package).
 */
abstract sealed class ReleasableLock permits HeldLock {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	/** The hold's states, also those that a release starts from. */
	static final int HELD = 0;

	static final int LOST = 1;

	static final int RELEASED = 2;

	private static final long MILLI_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final TimeoutException RENEWAL_STUCK = new TimeoutException(
			"a renewal still waited for the store when the lease ran out");

	private final long acquiredAtNanos;

	/** When the minimum hold ends on {@link System#nanoTime()}; only if it has one. */
	private final long minimumHoldEndNanos;

	private final boolean hasMinimumHold;

	/** Completes once the release that ended the hold has had the store's answer. */
	private final CompletableFuture<@Nullable Void> releaseEnded = new CompletableFuture<>();

	/**
	 * Whether the release that ended the hold was sent to the store, rather than leaving
	 * the lock there for the rest of its minimum hold; read with {@link #releaseEnded}.
	 */
	private volatile boolean releasingInStore;

	/**
	 * The renewals in flight that the release waits for before it is sent, if it had to
	 * wait for any.
	 */
	private volatile @Nullable CompletableFuture<Void> renewalsAwaited;

	ReleasableLock(Lease lease, Duration minimumHold, long attemptStartNanos) {
		this.acquiredAtNanos = attemptStartNanos;
		this.hasMinimumHold = !minimumHold.isZero();
		// Counted from when the store's answer came, so the store holds it that long at
		// least; never past a fixed lease, which is the longest the caller wanted it.
		long minimumHoldEnd = System.nanoTime() + Deadline.saturatedNanos(minimumHold);
		Long leaseEnd = lease.endNanos();
		this.minimumHoldEndNanos = (leaseEnd != null && !lease.renewed && leaseEnd - minimumHoldEnd < 0) ? leaseEnd
				: minimumHoldEnd;
	}

	/** The key, owner and fencing token that the lock holds in the store. */
	abstract LockBackend.Claim claim();

	abstract Lease lease();

	abstract HeldLock.Parts parts();

	abstract LocalLocks.Slot slot();

	abstract LockTracker tracker();

	/** Leaves the key in this JVM: its waiters may take it. */
	abstract void leaveKey();

	/** Whether a call of this JVM takes or took the key again, with its owner value. */
	abstract boolean claimedAgain();

	/** Stops the watchdog's watch of a lease it does not renew. */
	abstract void unwatch();

	/** Stops the watchdog's renewals; completes once none is in flight. */
	abstract CompletableFuture<Void> stopRenewing();

	/** Reports the lock lost while held, and tells its lost-lock listeners. */
	abstract void reportLost(String reason);

	/**
	 * The release of this lock on its way to the store, which ends the hold in this JVM
	 * (and frees the key's gate) once the store answers: one round trip. {@code null} if
	 * none is in flight, if the lock stays in the store for its minimum hold, or if the
	 * release still waits for a renewal in flight, which a store that does not answer
	 * keeps waiting until the lease runs out.
	 */
	@Nullable CompletableFuture<@Nullable Void> releaseInFlight() {
		return (this.releasingInStore && !this.releaseEnded.isDone()) ? this.releaseEnded : null;
	}

	/**
	 * Whether the release of this lock still waits for a renewal in flight before it is
	 * sent: a renewal stuck on a store that does not answer keeps it waiting until the
	 * lease runs out, far longer than the one round trip of a release on its way.
	 */
	boolean releaseWaitsForARenewal() {
		CompletableFuture<Void> renewals = this.renewalsAwaited;
		return renewals != null && !renewals.isDone();
	}

	/**
	 * Releases the lock, whose hold just ended from state {@code previous}: in the store,
	 * or kept there for the rest of its minimum hold if {@code keepForMinimumHold}.
	 */
	final CompletableFuture<Boolean> release(int previous, @Nullable Executor callerExecutor,
			boolean keepForMinimumHold, @Nullable StoreRelease storeRelease) {
		if (previous == RELEASED) {
			// Released already, perhaps still on its way to the store: close() waits
			// until that release has ended, though it is not this call's.
			return this.releaseEnded.handle((released, failure) -> false);
		}
		CompletableFuture<Boolean> releasing;
		if (keepForMinimumHold && previous == HELD && minimumHoldLeftNanos() > 0) {
			releasing = keepForMinimumHold(callerExecutor);
		}
		else {
			releasing = afterRenewals(previous, callerExecutor, storeRelease);
		}
		releasing.whenComplete((released, failure) -> this.releaseEnded.complete(null));
		return releasing;
	}

	/**
	 * Releases the lock in the store once no renewal of it is in flight. A blocking store
	 * runs a renewal on a connection of its own, where it can reach the store after a
	 * release sent on the caller's: with an owner value that a caller chose and claimed
	 * again since, it would extend that new lock by a whole watchdog lease. A renewal
	 * stuck on an unreachable store is waited for until the lease runs out at most.
	 */
	private CompletableFuture<Boolean> afterRenewals(int previous, @Nullable Executor callerExecutor,
			@Nullable StoreRelease storeRelease) {
		if (!lease().renewed) {
			unwatch();
			return releaseInStore(previous, callerExecutor, storeRelease);
		}
		CompletableFuture<Void> renewalsStopped = stopRenewing();
		if (renewalsStopped.isDone()) {
			return releaseInStore(previous, callerExecutor, storeRelease);
		}
		// Not in flight until it is sent (releaseInFlight()): a caller of this instance
		// past its deadline does not wait for a renewal that may be stuck until the lease
		// runs out.
		this.renewalsAwaited = renewalsStopped;
		parts().store()
			.expire(renewalsStopped, Deadline.after(Duration.ofNanos(lease().remainingNanos())), RENEWAL_STUCK,
					callerExecutor);
		return renewalsStopped
			.handleAsync((stopped, stuck) -> releaseInStore(previous, callerExecutor, storeRelease),
					CallerRuns.continuation(callerExecutor))
			.thenCompose(Function.identity());
	}

	/**
	 * Releases the lock in the store, with the other keys of its multi-key handle through
	 * {@code storeRelease}, or alone; alone, when a caller of this JVM waits for the key
	 * and the store can, it hands the lock over to that caller in the same round trip.
	 */
	private CompletableFuture<Boolean> releaseInStore(int previous, @Nullable Executor callerExecutor,
			@Nullable StoreRelease storeRelease) {
		this.releasingInStore = true;
		LockBackend.Claim release = claim().on(CallerRuns.forStatements(callerExecutor));
		CompletableFuture<Boolean> releasing;
		try {
			releasing = startRelease(previous, release, storeRelease, callerExecutor);
		}
		catch (RuntimeException | Error ex) {
			// A scheduler stopped by close(), or a backend that throws instead of failing
			// its stage: ended below like a failed release, or the key's local hold and
			// close(), which waits for it, would wait for ever.
			releasing = CompletableFuture.failedFuture(ex);
		}
		return releasing.handleAsync((releasedInStore, failure) -> {
			if (failure != null) {
				leaveKey();
				tracker().releaseFailed(failure);
				released(0);
				throw StoreCalls.asUnchecked(failure);
			}
			return ended(releasedInStore, previous, 0);
		}, CallerRuns.continuation(callerExecutor));
	}

	private CompletableFuture<Boolean> startRelease(int previous, LockBackend.Claim release,
			@Nullable StoreRelease storeRelease, @Nullable Executor callerExecutor) {
		if (previous == LOST) {
			// A lost lock is still released, in case the store kept it (a renewal whose
			// answer was lost extended it there), but not once a call of this JVM takes
			// the key again with the same owner value, or has taken it: the release,
			// checked by owner only, would end that lock, also when that call's attempt
			// is on its way back from the store.
			return parts().store().releaseUnlessClaimed(release, lease().endNanos(), this::claimedAgain);
		}
		if (storeRelease != null) {
			return storeRelease.release(release, lease().endNanos());
		}
		LocalLocks.Slot slot = slot();
		if (previous == HELD && parts().store().handsOver(claim())) {
			Acquisition next = slot.successor(claim().kind());
			if (next == null && slot.callerOnItsWayToTheGate()) {
				return HandOverGrace.successor(slot, claim().kind(), parts().store(), callerExecutor)
					.thenCompose((arrived) -> releaseOrHandOver(arrived, release));
			}
			return releaseOrHandOver(next, release);
		}
		return releaseOrHandOver(null, release);
	}

	private CompletableFuture<Boolean> releaseOrHandOver(@Nullable Acquisition next, LockBackend.Claim release) {
		return (next != null) ? next.takeOver(release, lease().endNanos())
				: parts().store().release(release, lease().endNanos());
	}

	/**
	 * Leaves the lock in the store for the rest of its minimum hold. The watchdog's
	 * renewals stop first, so that none still in flight sets a longer lease after the
	 * shorter one; one stuck on an unreachable store is waited for until the lease runs
	 * out at most, after which the store ignores it. If the store fails, the lock is
	 * released at once instead: better early than held for a whole lease.
	 */
	private CompletableFuture<Boolean> keepForMinimumHold(@Nullable Executor callerExecutor) {
		if (lease().duration == null) {
			unwatch();
			long left = minimumHoldLeftNanos();
			// Pending before the key is left, so that a claim of the same owner value
			// cannot start in between.
			parts().store().releaseLater(claim(), left);
			leaveKey();
			return CompletableFuture.completedFuture(ended(true, HELD, left));
		}
		CompletableFuture<Void> renewalsStopped = stopRenewing();
		parts().store()
			.expire(renewalsStopped, Deadline.after(Duration.ofNanos(lease().remainingNanos())), RENEWAL_STUCK,
					callerExecutor);
		return renewalsStopped
			.handleAsync((stopped, stuck) -> cutLease(callerExecutor), CallerRuns.continuation(callerExecutor))
			.thenCompose(Function.identity());
	}

	private CompletableFuture<Boolean> cutLease(@Nullable Executor callerExecutor) {
		long left = minimumHoldLeftNanos();
		long leftMillis = TimeUnit.NANOSECONDS.toMillis(left + MILLI_NANOS - 1);
		if (left < MILLI_NANOS) {
			// Too little to set: a lease of 0 ms would delete a Redis key at once anyway.
			return releaseInStore(HELD, callerExecutor, null);
		}
		LockBackend.Claim renewal = claim().on(CallerRuns.forStatements(callerExecutor));
		return parts().store().renew(renewal, Duration.ofMillis(leftMillis)).handleAsync((renewed, failure) -> {
			if (failure == null) {
				return CompletableFuture.completedFuture(ended(renewed, HELD, left));
			}
			logger.warn("Could not keep lock '" + claim().key() + "' in " + parts().store().name()
					+ " for the rest of its minimum hold (" + StoreCalls.unwrap(failure).getMessage()
					+ "); releasing it now");
			return releaseInStore(HELD, callerExecutor, null);
		}, CallerRuns.continuation(callerExecutor)).thenCompose(Function.identity());
	}

	private long minimumHoldLeftNanos() {
		return this.hasMinimumHold ? Math.max(0, this.minimumHoldEndNanos - System.nanoTime()) : 0;
	}

	/**
	 * Ends the hold in this JVM once the store answered.
	 * @param heldInStore whether the store still had the lock for this owner
	 * @param keptNanos how much longer the store keeps it, for its minimum hold
	 */
	private boolean ended(boolean heldInStore, int previous, long keptNanos) {
		leaveKey();
		boolean lost = !heldInStore || previous == LOST;
		if (lost && previous == HELD) {
			reportLost("it was no longer held in the store at release");
		}
		released(lost ? 0 : keptNanos);
		if (lost) {
			parts().losses().lostAtRelease(claim().key());
			return false;
		}
		return true;
	}

	/** Reports the end of the hold, once, whether or not the store answered. */
	private void released(long keptNanos) {
		Duration held = Duration.ofNanos(System.nanoTime() - this.acquiredAtNanos);
		tracker().released();
		if (logger.isDebugEnabled()) {
			String kept = (keptNanos > 0) ? "; the store keeps it " + TimeUnit.NANOSECONDS.toMillis(keptNanos)
					+ " ms more, for its minimum hold" : "";
			logger.debug("Released lock '" + claim().key() + "' in " + parts().store().name() + " after holding it "
					+ held.toMillis() + " ms" + kept + " (fencing token " + claim().fencingToken() + ")");
		}
	}

}
