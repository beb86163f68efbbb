package io.github.distributelock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.distributelock.LockHandle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a key in the store by this JVM, shared by the handles of its
 * reentrant entries: the hold count, the lease, the loss, and the release in the store
 * when the last handle is closed.
 * <p>
 * A lock with a minimum hold that is closed before it has passed is given up in this JVM
 * but left in the store for the rest of it: on a store with leases by an owner-checked
 * renewal for that rest (so the lock also ends then if this JVM dies), on a store without
 * leases by a release sent when it has passed.
 */
final class HeldLock {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private static final int HELD = 0;

	private static final int LOST = 1;

	private static final int RELEASED = 2;

	private static final long MILLI_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private static final TimeoutException RENEWAL_STUCK = new TimeoutException(
			"a renewal still waited for the store when the lease ran out");

	/**
	 * How long a releasing holder waits for a caller of this JVM on its way to the gate
	 * of the key, to hand it the lock: a few of its steps, far less than a round trip
	 * that a release and its next attempt would cost.
	 */
	private static final Duration ARRIVAL_GRACE = Duration.ofMillis(1);

	private static final TimeoutException ARRIVAL_GRACE_PASSED = new TimeoutException(
			"no caller arrived at the gate in time");

	/*
	 * The hold count and the state are fields set by compare-and-set rather than two
	 * AtomicInteger objects: a HeldLock is made at every acquisition.
	 */
	private static final VarHandle HOLDS;

	private static final VarHandle STATE;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			HOLDS = lookup.findVarHandle(HeldLock.class, "holds", int.class);
			STATE = lookup.findVarHandle(HeldLock.class, "state", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

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

	/** When the minimum hold ends on {@link System#nanoTime()}; only if it has one. */
	private final long minimumHoldEndNanos;

	private final boolean hasMinimumHold;

	private volatile int holds = 1;

	private volatile int state = HELD;

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

	private final List<LostListener> lostListeners = new CopyOnWriteArrayList<>();

	HeldLock(Parts parts, LocalLocks.Slot slot, LockBackend.Claim claim, long fencingToken,
			@Nullable Object reentrancyOwner, Lease lease, Duration minimumHold, LockTracker tracker,
			long attemptStartNanos) {
		this.parts = parts;
		this.slot = slot;
		this.key = claim.key();
		this.claim = claim.on(null).holding(fencingToken);
		this.fencingToken = fencingToken;
		this.reentrancyOwner = reentrancyOwner;
		this.lease = lease;
		this.tracker = tracker;
		this.acquiredAtNanos = attemptStartNanos;
		this.hasMinimumHold = !minimumHold.isZero();
		// Counted from when the store's answer came, so the store holds it that long at
		// least; never past a fixed lease, which is the longest the caller wanted it.
		long minimumHoldEnd = System.nanoTime() + Deadline.saturatedNanos(minimumHold);
		Long leaseEnd = lease.endNanos();
		this.minimumHoldEndNanos = (leaseEnd != null && !lease.renewed && leaseEnd - minimumHoldEnd < 0) ? leaseEnd
				: minimumHoldEnd;
	}

	String owner() {
		return this.claim.owner();
	}

	LockKind kind() {
		return this.claim.kind();
	}

	/** How many reentrant holds are open. */
	int holds() {
		return Math.max(0, this.holds);
	}

	boolean isHeld() {
		return this.state == HELD && !this.lease.ranOut();
	}

	/** Whether it was released or lost: no lease of it is kept any more. */
	boolean ended() {
		return this.state != HELD;
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
			current = this.holds;
			if (current <= 0) {
				return false;
			}
		}
		while (!HOLDS.compareAndSet(this, current, current + 1));
		return true;
	}

	LockHandle newHandle() {
		return new Handle(this);
	}

	CallerRuns callerRuns() {
		return this.parts.store().callerRuns();
	}

	/** Whether the store's client delivers its answers on the calling thread. */
	boolean onTheStoresAnswerThread() {
		return this.parts.store().deliversAnswersOnThisThread();
	}

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

	void addLostListener(LockHandle handle, Consumer<LockHandle> listener) {
		this.lostListeners.add(new LostListener(handle, listener));
		if (this.state == LOST) {
			notifyLost();
		}
	}

	/**
	 * Releases the reentrant hold of {@code closing}; the last one releases the store, or
	 * keeps the lock there for the rest of its minimum hold.
	 */
	CompletableFuture<Boolean> releaseHold(@Nullable Executor callerExecutor, LockHandle closing) {
		return releaseHold(callerExecutor, null, closing);
	}

	/**
	 * {@link #releaseHold(Executor, LockHandle)}, with the release in the store, if it
	 * comes to one, sent through {@code storeRelease}: a multi-key handle sends its keys'
	 * in one call.
	 */
	CompletableFuture<Boolean> releaseHold(@Nullable Executor callerExecutor, @Nullable StoreRelease storeRelease,
			LockHandle closing) {
		return ((int) HOLDS.getAndAdd(this, -1) > 1) ? otherHoldsRemain(closing)
				: release(callerExecutor, true, storeRelease);
	}

	/**
	 * Gives back the reentrant hold of {@code closing}, taken by a call that did not get
	 * everything it asked for (a multi-key request not taken whole): the last one
	 * releases the store at once, whatever the minimum hold, as nothing of the call may
	 * stay in the store.
	 */
	CompletableFuture<Boolean> giveBackHold(@Nullable Executor callerExecutor, LockHandle closing) {
		return ((int) HOLDS.getAndAdd(this, -1) > 1) ? otherHoldsRemain(closing) : release(callerExecutor, false, null);
	}

	/**
	 * Forgets the lost-lock listeners of an entry closed while other holds keep the lock:
	 * they are told of a loss before their handle is closed only, and a long outer hold
	 * would otherwise keep those of every entry closed meanwhile.
	 */
	private CompletableFuture<Boolean> otherHoldsRemain(LockHandle closing) {
		this.lostListeners.removeIf((lostListener) -> lostListener.handle == closing);
		return CompletableFuture.completedFuture(true);
	}

	/**
	 * Releases the lock in the store at once, whatever the number of holds and the
	 * minimum hold.
	 * @param callerExecutor the thread of a caller that waits for the release anyway, or
	 * {@code null}
	 * @return whether it was still held; exceptionally if the store failed (the release
	 * is retried in the background) or it was lost and losses are to be thrown
	 */
	CompletableFuture<Boolean> releaseAll(@Nullable Executor callerExecutor) {
		return releaseAll(callerExecutor, null);
	}

	/**
	 * {@link #releaseAll(Executor)}, with the release in the store sent through
	 * {@code storeRelease}.
	 */
	CompletableFuture<Boolean> releaseAll(@Nullable Executor callerExecutor, @Nullable StoreRelease storeRelease) {
		return release(callerExecutor, false, storeRelease);
	}

	private CompletableFuture<Boolean> release(@Nullable Executor callerExecutor, boolean keepForMinimumHold,
			@Nullable StoreRelease storeRelease) {
		this.holds = 0;
		int previous = (int) STATE.getAndSet(this, RELEASED);
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
		if (!this.lease.renewed) {
			this.parts.watchdog().unwatch(this);
			return releaseInStore(previous, callerExecutor, storeRelease);
		}
		CompletableFuture<Void> renewalsStopped = this.parts.watchdog().stopRenewing(this);
		if (renewalsStopped.isDone()) {
			return releaseInStore(previous, callerExecutor, storeRelease);
		}
		// Not in flight until it is sent (releaseInFlight()): a caller of this instance
		// past its deadline does not wait for a renewal that may be stuck until the lease
		// runs out.
		this.renewalsAwaited = renewalsStopped;
		this.parts.store()
			.expire(renewalsStopped, Deadline.after(Duration.ofNanos(this.lease.remainingNanos())), RENEWAL_STUCK,
					callerExecutor);
		return renewalsStopped
			.handleAsync((stopped, stuck) -> releaseInStore(previous, callerExecutor, storeRelease),
					CallerRuns.continuation(callerExecutor))
			.thenCompose(Function.identity());
	}

	private CompletableFuture<Boolean> releaseInStore(int previous, @Nullable Executor callerExecutor) {
		return releaseInStore(previous, callerExecutor, null);
	}

	/**
	 * Releases the lock in the store, with the other keys of its multi-key handle through
	 * {@code storeRelease}, or alone; alone, when a caller of this JVM waits for the key
	 * and the store can, it hands the lock over to that caller in the same round trip.
	 */
	private CompletableFuture<Boolean> releaseInStore(int previous, @Nullable Executor callerExecutor,
			@Nullable StoreRelease storeRelease) {
		this.releasingInStore = true;
		LockBackend.Claim release = this.claim.on(CallerRuns.forStatements(callerExecutor));
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
				this.slot.leave(this);
				this.tracker.releaseFailed(failure);
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
			return this.parts.store()
				.releaseUnlessClaimed(release, this.lease.endNanos(), () -> this.slot.claimedAgain(this));
		}
		if (storeRelease != null) {
			return storeRelease.release(release, this.lease.endNanos());
		}
		if (previous == HELD && this.parts.store().handsOver(this.claim)) {
			Acquisition next = this.slot.successor(this.claim.kind());
			if (next == null && this.slot.callerOnItsWayToTheGate()) {
				return successor(Deadline.after(ARRIVAL_GRACE), callerExecutor)
					.thenCompose((arrived) -> releaseOrHandOver(arrived, release));
			}
			return releaseOrHandOver(next, release);
		}
		return releaseOrHandOver(null, release);
	}

	private CompletableFuture<Boolean> releaseOrHandOver(@Nullable Acquisition next, LockBackend.Claim release) {
		return (next != null) ? next.takeOver(release, this.lease.endNanos())
				: this.parts.store().release(release, this.lease.endNanos());
	}

	/**
	 * The caller of this JVM to hand the lock to: one that waits for it now, or one that
	 * entered the key and is on its way to the gate, waited for until {@code grace}.
	 * Under contention the holder's next caller is often a step short of the gate when
	 * the holder releases, and a release then costs a round trip more, with another
	 * instance's waiter and that caller racing for the key. A caller that releases on its
	 * own thread ends the grace there too, not only by the scheduler's timer: a caller
	 * that entered the key may stay short of its gate far longer (a multi-key call
	 * waiting at the gate of another of its keys), and a busy scheduler would keep the
	 * release waiting for it as long.
	 */
	private CompletableFuture<@Nullable Acquisition> successor(Deadline grace, @Nullable Executor callerExecutor) {
		CompletableFuture<Void> arrival = this.slot.awaitArrival();
		Acquisition next = this.slot.successor(this.claim.kind());
		if (next != null || grace.hasPassed() || !this.slot.callerOnItsWayToTheGate()) {
			this.slot.stopAwaitingArrival(arrival);
			return CompletableFuture.completedFuture(next);
		}
		this.parts.store().expire(arrival, grace, ARRIVAL_GRACE_PASSED, callerExecutor);
		return arrival.handle((arrived, gracePassed) -> grace)
			.thenCompose((sameGrace) -> successor(sameGrace, callerExecutor));
	}

	/**
	 * Leaves the lock in the store for the rest of its minimum hold. The watchdog's
	 * renewals stop first, so that none still in flight sets a longer lease after the
	 * shorter one; one stuck on an unreachable store is waited for until the lease runs
	 * out at most, after which the store ignores it. If the store fails, the lock is
	 * released at once instead: better early than held for a whole lease.
	 */
	private CompletableFuture<Boolean> keepForMinimumHold(@Nullable Executor callerExecutor) {
		if (this.lease.duration == null) {
			this.parts.watchdog().unwatch(this);
			long left = minimumHoldLeftNanos();
			// Pending before the key is left, so that a claim of the same owner value
			// cannot start in between.
			this.parts.store().releaseLater(this.claim, left);
			this.slot.leave(this);
			return CompletableFuture.completedFuture(ended(true, HELD, left));
		}
		CompletableFuture<Void> renewalsStopped = this.parts.watchdog().stopRenewing(this);
		this.parts.store()
			.expire(renewalsStopped, Deadline.after(Duration.ofNanos(this.lease.remainingNanos())), RENEWAL_STUCK,
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
			return releaseInStore(HELD, callerExecutor);
		}
		LockBackend.Claim renewal = this.claim.on(CallerRuns.forStatements(callerExecutor));
		return this.parts.store().renew(renewal, Duration.ofMillis(leftMillis)).handleAsync((renewed, failure) -> {
			if (failure == null) {
				return CompletableFuture.completedFuture(ended(renewed, HELD, left));
			}
			logger.warn("Could not keep lock '" + this.key + "' in " + this.parts.store().name()
					+ " for the rest of its minimum hold (" + StoreCalls.unwrap(failure).getMessage()
					+ "); releasing it now");
			return releaseInStore(HELD, callerExecutor);
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
		this.slot.leave(this);
		boolean lost = !heldInStore || previous == LOST;
		if (lost && previous == HELD) {
			this.parts.losses().lost(this, "it was no longer held in the store at release");
			notifyLost();
		}
		released(lost ? 0 : keptNanos);
		if (lost) {
			this.parts.losses().lostAtRelease(this.key);
			return false;
		}
		return true;
	}

	/** Reports the end of the hold, once, whether or not the store answered. */
	private void released(long keptNanos) {
		Duration held = Duration.ofNanos(System.nanoTime() - this.acquiredAtNanos);
		this.tracker.released();
		if (logger.isDebugEnabled()) {
			String kept = (keptNanos > 0) ? "; the store keeps it " + TimeUnit.NANOSECONDS.toMillis(keptNanos)
					+ " ms more, for its minimum hold" : "";
			logger.debug("Released lock '" + this.key + "' in " + this.parts.store().name() + " after holding it "
					+ held.toMillis() + " ms" + kept + " (fencing token " + this.fencingToken + ")");
		}
	}

	/**
	 * Answers a renewal that the store confirmed after this lock was reported lost (its
	 * lease ran out here while the renewal waited): the store now keeps, for a whole
	 * lease, a lock that nobody here holds, and other instances would wait for it. It is
	 * released there at once, unless this JVM took the key again with the same owner
	 * value since, whose lock that renewal then extended.
	 * @param storeLeaseEndNanos when the lease the renewal set ends, on
	 * {@link System#nanoTime()}: a failed release is retried until then
	 * @return whether the lock had been reported lost
	 */
	boolean renewedAfterLoss(long storeLeaseEndNanos) {
		if (this.state != LOST) {
			return false;
		}
		if (!this.slot.claimedAgain(this)) {
			logger.warn("Lock '" + this.key + "' was renewed in " + this.parts.store().name()
					+ " after it was reported lost; releasing it there");
			this.parts.store()
				.release(this.claim.on(null), storeLeaseEndNanos)
				.whenComplete((released, failure) -> logFailedReleaseAfterLoss(failure));
		}
		return true;
	}

	private void logFailedReleaseAfterLoss(@Nullable Throwable failure) {
		if (failure != null) {
			logger.warn("Could not release lock '" + this.key + "', renewed in " + this.parts.store().name()
					+ " after it was reported lost; it ends with its lease there", StoreCalls.unwrap(failure));
		}
	}

	void markLost(String reason) {
		if (STATE.compareAndSet(this, HELD, LOST)) {
			this.parts.watchdog().unwatch(this);
			// The store no longer protects this key for us: let this JVM's waiters
			// compete.
			this.slot.leave(this);
			this.parts.losses().lost(this, reason);
			notifyLost();
		}
	}

	/**
	 * Tells the listeners on the lock service's {@link LostListenerThread}, not on this
	 * thread: the store's answer thread or the scheduler that keeps the other leases.
	 */
	private void notifyLost() {
		if (!this.lostListeners.isEmpty()) {
			this.parts.losses().tell(this::tellLostListeners);
		}
	}

	private void tellLostListeners() {
		for (LostListener lostListener : this.lostListeners) {
			if (this.lostListeners.remove(lostListener)) {
				try {
					lostListener.listener.accept(lostListener.handle);
				}
				catch (RuntimeException | Error ex) {
					// Logged; the next listener is still told.
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
