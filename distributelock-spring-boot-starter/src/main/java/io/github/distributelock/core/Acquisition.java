package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * One call for a lock, from this JVM's gate for the key to the store and back, written as
 * continuations so that it parks no thread: the blocking API runs them on the caller's
 * thread, the non-blocking API wherever the store answers.
 * <p>
 * It owns the caller's {@link Deadline}: it waits for the gate until then, attempts at
 * the store, waits for a release until the deadline or until the holder's lease runs out
 * (a crashed holder never notifies), and retries transient store failures (a failover, a
 * reconnect, a command timeout) with a growing pause until the deadline, after which the
 * caller gets the last failure. A wait of zero makes one attempt, once a release of the
 * key by this JVM that is on its way to the store has ended.
 * <p>
 * An attempt whose answer failed may have been applied by the store, so it is given back
 * before anything else happens; an acquisition ended from outside (shutdown, a cancelled
 * future, an interrupted caller) gives back what its attempt in flight takes.
 */
final class Acquisition extends AcquisitionCall<HeldLock, AcquireResult> {

	/**
	 * The longest wait of a claim that has an entry in the store's queue: its next
	 * attempt refreshes the entry, so a backend keeps a waiter's entry for at least three
	 * times this long before it takes the waiter for crashed.
	 */
	static final Duration QUEUED_WAIT_SLICE = Duration.ofSeconds(3);

	private static final TimeoutException GATE_TIMEOUT = new TimeoutException("wait time passed at the local gate");

	private final LocalLocks.Slot slot;

	private final Request request;

	private final LockTracker tracker;

	/** Whether an attempt reached, or may have reached, the store's queue. */
	private volatile boolean queued;

	/** Whether the next attempt follows a wait that ended without a store failure. */
	private volatile boolean waitEnded;

	/**
	 * Where a holder of this JVM may hand this call the lock while it waits in the
	 * store's queue: a fair lock on a store that hands locks over; {@code null}
	 * otherwise.
	 */
	private final @Nullable StoreQueuePlace place;

	Acquisition(HeldLock.Parts parts, Lifecycle lifecycle, LocalLocks.Slot slot, Request request, LockTracker tracker,
			Executor executor) {
		super(parts, lifecycle, executor);
		this.slot = slot;
		this.request = request;
		this.tracker = tracker;
		this.place = (request.claim().kind().type() == LockKind.Type.FAIR && parts.store().handsOver(request.claim()))
				? new StoreQueuePlace(slot, this) : null;
	}

	@Override
	String key() {
		return this.request.claim().key();
	}

	@Override
	Deadline deadline() {
		return this.request.deadline();
	}

	/**
	 * {@inheritDoc} A claim that may be queued in the store keeps its place there for the
	 * waiter lease, which may be longer than the lock's.
	 */
	@Override
	Duration expiresAfter() {
		Duration lease = this.parts.watchdog().expiresAfter(this.request.fixedLease());
		return (queues() && lease.compareTo(LockKind.WAITER_LEASE) < 0) ? LockKind.WAITER_LEASE : lease;
	}

	private boolean queues() {
		return this.request.claim().kind().queued();
	}

	private Duration storeLease() {
		return this.parts.watchdog().storeLease(this.request.fixedLease());
	}

	@Override
	String describe() {
		return "lock '" + key() + "'";
	}

	Acquisition start() {
		this.lifecycle.enter(this, key());
		if (this.result.isDone()) {
			abandon();
		}
		else if (this.request.claim().kind().type() != LockKind.Type.EXCLUSIVE) {
			// Only plain exclusive callers queue on this JVM's gate: the other kinds
			// share the key, or keep their order, in the store.
			this.slot.keepOffTheGate();
			if (this.request.deadline().hasPassed()) {
				afterReleaseInFlight(false);
			}
			else {
				attempt();
			}
		}
		else if (this.slot.tryTakeGate()) {
			attempt();
		}
		else if (this.request.deadline().hasPassed()) {
			afterReleaseInFlight(true);
		}
		else {
			awaitGate(false);
		}
		return this;
	}

	/**
	 * The deadline has passed, so the call makes one attempt at most. If a caller of this
	 * JVM is giving the key's lock back, its release is on its way to the store: the
	 * attempt waits for it (one round trip), and for the gate it frees. Without that, a
	 * zero wait issued right after a release that runs in the background (a reactive
	 * subscription cancelled by {@code take(1)} or a timeout, {@code releaseAsync()})
	 * found the key busy although it was being given back.
	 * @param gated whether the call needs the gate, which the releasing caller holds
	 */
	private void afterReleaseInFlight(boolean gated) {
		CompletableFuture<@Nullable Void> release = this.slot.waitForReleaseInFlight();
		if (release == null) {
			if (gated) {
				notAcquired();
			}
			else {
				attempt();
			}
			return;
		}
		release.whenComplete((ended, failure) -> this.executor.execute(() -> {
			if (this.result.isDone()) {
				abandon();
			}
			else if (!gated || this.slot.tryTakeGate()) {
				attempt();
			}
			else {
				notAcquired();
			}
		}));
	}

	/**
	 * Waits for this JVM's gate for the key: callers of this JVM queue here, so only one
	 * of them competes at the store.
	 */
	private void awaitGate(boolean first) {
		CompletableFuture<Boolean> wake = this.slot.awaitGate(first, this);
		waitingOn(wake);
		this.parts.store().expire(wake, this.request.deadline(), GATE_TIMEOUT, this.executor);
		wake.whenComplete((handedOver, failure) -> {
			if (failure == null && handedOver) {
				// The holder passed this call the gate and now hands it the lock: see
				// takeOver. Nothing to run on the caller's thread until then.
				return;
			}
			this.executor.execute(() -> {
				if (this.result.isDone()) {
					abandon();
				}
				else if (failure != null) {
					afterReleaseInFlight(true);
				}
				else if (this.slot.tryTakeGate()) {
					attempt();
				}
				else {
					awaitGate(true);
				}
			});
		});
	}

	/**
	 * Whether this call goes on by itself: no holder of this JVM claimed it to hand it
	 * the lock, and none can any more. A claimed call is driven by {@link #takeOver}.
	 */
	private boolean unclaimed() {
		return this.place == null || this.place.goOnAlone();
	}

	/**
	 * Ends this call's wait for a release in the store (of a fair lock, queued there) so
	 * that a holder of this JVM can hand it the lock, unless the call has gone on by
	 * itself.
	 * @return whether the holder may now call {@link #takeOver}
	 */
	boolean claimForHandOver() {
		if (this.place == null || !this.place.claim()) {
			return false;
		}
		cancelWait();
		return true;
	}

	/**
	 * Takes the lock from its holder in this JVM by a hand-over in the store, as this
	 * call's attempt: the holder passed this call's slot the gate, or ended its wait in
	 * the store's queue. If the holder no longer held the lock, the store's answer is
	 * that of an attempt, and the call goes on from it as from any other; if this call
	 * has ended meanwhile, what it was handed is given back. A blocking caller whom the
	 * store admits by the holder's release alone
	 * ({@link HandOverLockBackend#admittedByRelease}) holds at once, while the holder's
	 * release goes on.
	 * @param holder the holder's claim, on the thread of a caller that waits for the
	 * release anyway
	 * @param holderLeaseEndNanos when the holder's lease ends, for retries of its release
	 * if the store fails
	 * @return whether the holder still held the lock
	 */
	CompletableFuture<Boolean> takeOver(LockBackend.Claim holder, @Nullable Long holderLeaseEndNanos) {
		try {
			return handedOver(holder, holderLeaseEndNanos);
		}
		catch (RuntimeException | Error ex) {
			// Claimed by the holder, this call would wait for the hand-over for ever: the
			// holder's lock is released as any, and the call goes on by itself.
			logger.warn("Could not hand lock '" + key() + "' in " + this.parts.store().name()
					+ " over to a caller of this instance; releasing it instead", ex);
			CompletableFuture<Boolean> released = this.parts.store().release(holder, holderLeaseEndNanos);
			try {
				this.executor.execute(this::attempt);
			}
			catch (RejectedExecutionException rejected) {
				fail(this.lifecycle.shuttingDown(key(), rejected));
			}
			return released;
		}
	}

	private CompletableFuture<Boolean> handedOver(LockBackend.Claim holder, @Nullable Long holderLeaseEndNanos) {
		long attemptStart = System.nanoTime();
		long lossReports = this.parts.losses().reports();
		// Only a caller with a thread of its own: a non-blocking caller's code would
		// run in the holder's release.
		AcquireResult admitted = (this.executor instanceof CallerRuns)
				? this.parts.store().admittedByRelease(holder, this.request.claim()) : null;
		if (admitted != null) {
			// The store keeps the key held across the release: holding starts now rather
			// than after the store's write.
			CompletableFuture<Boolean> released = this.parts.store().release(holder, holderLeaseEndNanos);
			this.executor.execute(() -> acquired(admitted, attemptStart, lossReports));
			return released;
		}
		Duration lease = storeLease();
		CompletableFuture<HandOverLockBackend.HandOver> handedOver = this.parts.store()
			.handOver(holder, this.request.claim(), lease, holderLeaseEndNanos);
		StoreQueuePlace place = this.place;
		CompletableFuture<HandOverLockBackend.HandOver> answer = handedOver.whenComplete((handOver, failure) -> {
			recordAnswer();
			if (place != null) {
				place.answered((handOver != null) ? handOver.next() : null);
			}
		});
		answer.whenCompleteAsync((handOver, failure) -> {
			if (failure != null) {
				afterFailedAttempt(failure, attemptStart);
			}
			else if (handOver.next().acquired()) {
				acquired(handOver.next(), attemptStart, lossReports);
			}
			else {
				awaitRelease(handOver.next());
			}
		}, this.executor);
		// Not sent, as the releases the next claim must send first were not answered by
		// its deadline: the holder's lock is released as any.
		return handedOver.thenApply(HandOverLockBackend.HandOver::released)
			.exceptionallyCompose((failure) -> (StoreCalls.unwrap(failure) instanceof AttemptNotSent)
					? this.parts.store().release(holder, holderLeaseEndNanos)
					: CompletableFuture.failedFuture(failure));
	}

	@Override
	void attempt() {
		if (this.result.isDone()) {
			abandon();
			return;
		}
		boolean afterWait = this.waitEnded;
		this.waitEnded = false;
		if (afterWait && this.queued && this.request.deadline().hasPassed()) {
			// A claim in the store's queue whose wait ended at the deadline leaves the
			// queue instead of trying once more: an attempt and then the leave would be
			// two round trips past the deadline. (After a store failure it does try: the
			// caller then hears of the store's answer, failure or not.)
			notAcquired();
			return;
		}
		long attemptStart = System.nanoTime();
		long lossReports = this.parts.losses().reports();
		this.queued = this.request.claim().kind().queued();
		Duration lease = storeLease();
		CompletableFuture<AcquireResult> answer = this.parts.store()
			.tryAcquire(this.request.claim(), lease, retrying());
		if (this.queued) {
			answer = answer.whenComplete((attempt, failure) -> {
				if (attempt != null && !attempt.acquired() && !attempt.queued()) {
					// Refused, and nothing of the claim left in the store to take out.
					this.queued = false;
				}
			});
		}
		StoreQueuePlace place = this.place;
		if (place != null) {
			// In the order the store answered, on the thread the answer came on.
			answer = answer.whenComplete((attempt, failure) -> place.answered(attempt));
		}
		goOn(answer, attemptStart, lossReports);
	}

	@Override
	boolean acquiredIn(AcquireResult attempt) {
		return attempt.acquired();
	}

	@Override
	void acquired(AcquireResult attempt, long attemptStart, long lossReports) {
		if (this.result.isDone()) {
			giveBack();
			return;
		}
		Lease lease = this.parts.watchdog()
			.newLease(this.request.fixedLease(), attemptStart, this.request.ownerChosen());
		this.queued = false;
		HeldLock lock = new HeldLock(this.parts, this.slot, this.request.claim(), attempt.fencingToken(),
				this.request.reentrancyOwner(), lease, this.request.minimumHold(), this.tracker, attemptStart);
		this.slot.hold(lock);
		try {
			this.parts.watchdog().watch(lock);
		}
		catch (RejectedExecutionException ex) {
			// The watchdog's scheduler stopped: close() is running.
			fail(this.lifecycle.shuttingDown(key(), ex));
		}
		if (this.result.isDone() || this.lifecycle.isClosed()) {
			fail(this.lifecycle.shuttingDown(key(), null));
			lock.releaseAll(null).whenComplete((released, failure) -> settle());
			return;
		}
		// Told before a loss reported meanwhile, which a tracker tells of the hold.
		this.tracker.acquired(lock.fencingToken);
		this.parts.losses().markLostIfReportedSince(lock, lossReports);
		logWaited("Acquired", " after waiting ");
		if (!this.result.complete(lock)) {
			// Ended from outside since the check above: settled, as there, once the lock
			// is given back, so that an interrupted caller returns after its release.
			lock.releaseAll(null).whenComplete((released, failure) -> settle());
			return;
		}
		settle();
	}

	@Override
	void awaitRelease(AcquireResult attempt) {
		if (this.result.isDone()) {
			if (unclaimed()) {
				abandon();
			}
			return;
		}
		Deadline deadline = this.request.deadline();
		if (deadline.hasPassed()) {
			if (unclaimed()) {
				notAcquired();
			}
			return;
		}
		startWait(attempt);
	}

	@Override
	void startWait(AcquireResult attempt) {
		Deadline deadline = this.request.deadline();
		Duration holderLease = attempt.holderLeaseRemaining();
		if (holderLease != null && !holderLease.isNegative() && !holderLease.isZero()) {
			// Wake at the holder's expiry, plus a millisecond so the store has expired
			// it.
			deadline = deadline.atMost(holderLease.plusMillis(1));
		}
		if (this.request.claim().kind().queued()) {
			deadline = deadline.atMost(QUEUED_WAIT_SLICE);
		}
		CompletableFuture<Void> wait = this.parts.store().awaitRelease(this.request.claim(), attempt, deadline);
		waitingOn(wait);
		if (this.place != null && this.place.waitsForNothing()) {
			// A holder claimed this call before its wait began: no need to wait.
			StoreCalls.endWait(wait);
		}
		wait.whenComplete((released, failure) -> {
			if (!unclaimed()) {
				// Nothing to run on the caller's thread: a holder hands the lock over.
				return;
			}
			this.executor.execute(() -> {
				if (failure != null && !this.result.isDone()) {
					backOff(failure);
				}
				else {
					this.waitEnded = true;
					attemptAgain();
				}
			});
		});
	}

	/**
	 * The store may have applied the attempt before failing to answer: give it back, and
	 * only then go on, as the next attempt presents the same owner.
	 */
	@Override
	void giveBackAfterFailure(Throwable failure, long attemptStart) {
		if (StoreCalls.isPermanent(failure)) {
			// The key or owner cannot be stored, or the key is held as another kind:
			// trying again cannot help, and nothing was taken.
			failed(failure);
			return;
		}
		@Nullable Long giveBackEnd = giveBackLeaseEnd();
		if (this.request.deadline().hasPassed() || this.lifecycle.isClosed()) {
			// The caller hears of the failure now, not one more store call later: the
			// give-back needs no caller (off its thread, retried in the background until
			// the lease would end), and the key stays gated here until it is done.
			this.result.completeExceptionally(this.lifecycle.isClosed() ? this.lifecycle.shuttingDown(key(), failure)
					: this.parts.store().failure(key(), "acquire", failure));
			this.parts.store()
				.release(this.request.claim().on(null), giveBackEnd)
				.whenCompleteAsync((released, releaseFailure) -> abandon(), this.executor);
			return;
		}
		afterGiveBack(this.parts.store().release(this.request.claim(), giveBackEnd), failure);
	}

	/**
	 * Releases what an attempt took for a call that has ended. The release runs on the
	 * store's own threads, as do those of the locks taken as the call ended: a blocking
	 * caller's thread is lent only while it waits for its result.
	 */
	private void giveBack() {
		this.queued = false;
		this.parts.store()
			.release(this.request.claim().on(null), giveBackLeaseEnd())
			.whenCompleteAsync((released, failure) -> abandon(), this.executor);
	}

	/**
	 * Until when a give-back or a queue exit is retried: one lease after the store's
	 * answer, not after the attempt began, as the store took the lock when it answered,
	 * and a late answer left it in the store after the retries had stopped; for a claim
	 * that may be queued, at least the waiter lease, or its place was left at the head of
	 * the queue, holding up every waiter behind it, after the retries had stopped.
	 */
	private @Nullable Long giveBackLeaseEnd() {
		long now = System.nanoTime();
		Long end = this.parts.watchdog().newLease(this.request.fixedLease(), now).endNanos();
		if (end == null || !queues()) {
			return end;
		}
		// The claim's place in the store's queue outlives a shorter lease of the lock.
		long placeEnd = now + LockKind.WAITER_LEASE.toNanos();
		return (placeEnd - end > 0) ? placeEnd : end;
	}

	private void notAcquired() {
		if (this.queued && !this.result.isDone()) {
			// The caller hears that it did not get the lock once its claim has left the
			// store's queue, so that nothing of the call is in the store any more (one
			// round trip past the deadline at most).
			leaveQueue(this::notAcquired);
			return;
		}
		if (this.result.complete(null)) {
			if (this.request.skipWhenBusy()) {
				logWaited("Skipped", ", held by another owner, after waiting ");
			}
			else {
				logWaited("Did not acquire", " within ");
			}
		}
		abandon();
	}

	/**
	 * Lets go of the key locally and, for a claim that may be queued in the store, leaves
	 * the queue there first, so that a waiter that gives up never holds up the ones
	 * behind it.
	 */
	@Override
	void abandon() {
		if (!this.queued) {
			this.slot.leave(null);
			settle();
			return;
		}
		leaveQueue(this::abandon);
	}

	/** Takes the claim out of the store's queue, then goes on with {@code next}. */
	private void leaveQueue(Runnable next) {
		this.queued = false;
		this.parts.store()
			.release(this.request.claim(), giveBackLeaseEnd())
			.whenCompleteAsync((released, failure) -> next.run(), this.executor);
	}

	/** Tells the tracker how the call ended, once, and lets go of the call. */
	private void settle() {
		if (this.settled.isDone()) {
			return;
		}
		if (this.place != null) {
			this.place.leave();
		}
		if (this.result.isCompletedExceptionally()) {
			this.tracker.failed(StoreCalls.unwrap(this.result.handle((lock, failure) -> failure).join()));
		}
		else if (this.result.getNow(null) == null) {
			if (this.request.skipWhenBusy()) {
				this.tracker.skipped();
			}
			else {
				this.tracker.notAcquired();
			}
		}
		this.settled.complete(null);
	}

	/**
	 * What the call asks for.
	 *
	 * @param claim the key, the owner token, and the caller's thread if it blocks
	 * @param fixedLease the fixed lease, or {@code null} for one the watchdog renews
	 * @param deadline when the caller stops waiting
	 * @param reentrancyOwner who may re-enter the lock once taken, or {@code null}
	 * @param minimumHold how long the lock stays in the store at least once taken
	 * @param skipWhenBusy whether the caller skips its work if the lock is not taken
	 */
	record Request(LockBackend.Claim claim, @Nullable Duration fixedLease, Deadline deadline,
			@Nullable Object reentrancyOwner, Duration minimumHold, boolean skipWhenBusy, boolean ownerChosen) {
	}

}
