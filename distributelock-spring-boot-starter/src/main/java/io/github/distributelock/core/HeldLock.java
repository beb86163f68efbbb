package io.github.distributelock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.github.distributelock.LockHandle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition of a key in the store by this JVM, shared by the handles of its
 * reentrant entries: the hold count, the lease, the loss and its listeners. The last
 * handle closed ends the hold, and {@link ReleasableLock} releases it in the store.
 */
final class HeldLock extends ReleasableLock {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	/*
	 * The hold count and the state are fields set by compare-and-set rather than two
	 * AtomicInteger objects, and the lost-lock listeners a list made by the first one: a
	 * HeldLock is made at every acquisition, and few have a listener.
	 */
	private static final VarHandle HOLDS;

	private static final VarHandle STATE;

	private static final VarHandle LOST_LISTENERS;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			HOLDS = lookup.findVarHandle(HeldLock.class, "holds", int.class);
			STATE = lookup.findVarHandle(HeldLock.class, "state", int.class);
			LOST_LISTENERS = lookup.findVarHandle(HeldLock.class, "lostListeners", List.class);
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

	private volatile int holds = 1;

	private volatile int state = HELD;

	private volatile @Nullable List<LostListener> lostListeners;

	HeldLock(Parts parts, LocalLocks.Slot slot, LockBackend.Claim claim, long fencingToken,
			@Nullable Object reentrancyOwner, Lease lease, Duration minimumHold, LockTracker tracker,
			long attemptStartNanos) {
		super(lease, minimumHold, attemptStartNanos);
		this.parts = parts;
		this.slot = slot;
		this.key = claim.key();
		this.claim = claim.on(null).holding(fencingToken);
		this.fencingToken = fencingToken;
		this.reentrancyOwner = reentrancyOwner;
		this.lease = lease;
		this.tracker = tracker;
	}

	@Override
	LockBackend.Claim claim() {
		return this.claim;
	}

	@Override
	Lease lease() {
		return this.lease;
	}

	@Override
	Parts parts() {
		return this.parts;
	}

	@Override
	LocalLocks.Slot slot() {
		return this.slot;
	}

	@Override
	LockTracker tracker() {
		return this.tracker;
	}

	@Override
	void leaveKey() {
		this.slot.leave(this);
	}

	@Override
	boolean claimedAgain() {
		return this.slot.claimedAgain(this);
	}

	@Override
	void unwatch() {
		this.parts.watchdog().unwatch(this);
	}

	@Override
	CompletableFuture<Void> stopRenewing() {
		return this.parts.watchdog().stopRenewing(this);
	}

	@Override
	void reportLost(String reason) {
		this.parts.losses().lost(this, reason);
		notifyLost();
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

	void addLostListener(LockHandle handle, Consumer<LockHandle> listener) {
		lostListenersToAddTo().add(new LostListener(handle, listener));
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
				: endHold(callerExecutor, true, storeRelease);
	}

	/**
	 * Gives back the reentrant hold of {@code closing}, taken by a call that did not get
	 * everything it asked for (a multi-key request not taken whole): the last one
	 * releases the store at once, whatever the minimum hold, as nothing of the call may
	 * stay in the store.
	 */
	CompletableFuture<Boolean> giveBackHold(@Nullable Executor callerExecutor, LockHandle closing) {
		return ((int) HOLDS.getAndAdd(this, -1) > 1) ? otherHoldsRemain(closing) : endHold(callerExecutor, false, null);
	}

	/**
	 * Forgets the lost-lock listeners of an entry closed while other holds keep the lock:
	 * they are told of a loss before their handle is closed only, and a long outer hold
	 * would otherwise keep those of every entry closed meanwhile.
	 */
	private CompletableFuture<Boolean> otherHoldsRemain(LockHandle closing) {
		List<LostListener> listeners = this.lostListeners;
		if (listeners != null) {
			listeners.removeIf((lostListener) -> lostListener.handle == closing);
		}
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
		return endHold(callerExecutor, false, storeRelease);
	}

	private CompletableFuture<Boolean> endHold(@Nullable Executor callerExecutor, boolean keepForMinimumHold,
			@Nullable StoreRelease storeRelease) {
		this.holds = 0;
		return release((int) STATE.getAndSet(this, RELEASED), callerExecutor, keepForMinimumHold, storeRelease);
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
		if (!claimedAgain()) {
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
			unwatch();
			// The store no longer protects this key for us: let this JVM's waiters
			// compete.
			leaveKey();
			reportLost(reason);
		}
	}

	/**
	 * Tells the listeners on the lock service's {@link LostListenerThread}, not on this
	 * thread: the store's answer thread or the scheduler that keeps the other leases.
	 */
	private void notifyLost() {
		List<LostListener> listeners = this.lostListeners;
		if (listeners != null && !listeners.isEmpty()) {
			this.parts.losses().tell(this::tellLostListeners);
		}
	}

	private void tellLostListeners() {
		List<LostListener> listeners = this.lostListeners;
		if (listeners == null) {
			return;
		}
		for (LostListener lostListener : listeners) {
			if (listeners.remove(lostListener)) {
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

	private List<LostListener> lostListenersToAddTo() {
		List<LostListener> listeners = this.lostListeners;
		if (listeners == null) {
			List<LostListener> made = new CopyOnWriteArrayList<>();
			listeners = LOST_LISTENERS.compareAndSet(this, null, made) ? made : this.lostListeners;
		}
		return listeners;
	}

	private record LostListener(LockHandle handle, Consumer<LockHandle> listener) {
	}

}
