package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

import org.jspecify.annotations.Nullable;

/**
 * One call for several plain exclusive keys that the backend takes in one round trip
 * ({@link MultiKeyLockBackend}), written as continuations like {@link Acquisition}, whose
 * guarantees it keeps for the set as a whole.
 * <p>
 * It takes this JVM's gate of each key first ({@link OrderedGates}: in the keys' global
 * order, each waited for until the deadline), so that callers of this JVM queue here and
 * two callers whose sets overlap never wait for each other in a cycle. With every gate
 * taken it attempts all keys in one call; when a key is held it waits for that key's
 * release (or its holder's lease to run out) and attempts the whole set again, under the
 * one deadline. The gates stay taken while it waits: a local caller of one of the keys
 * queues behind it, as behind a single-key acquisition that waits at the store.
 * <p>
 * An attempt whose answer failed may have been applied by the store, so every key is
 * given back before anything else happens; an acquisition ended from outside (shutdown, a
 * cancelled future, an interrupted caller) gives back what its attempt in flight takes.
 * Taken, each key becomes a {@link HeldLock} of its own, with its fencing token, lease,
 * watchdog renewal, loss and events.
 */
final class BatchAcquisition extends AcquisitionCall<List<HeldLock>, MultiKeyAcquireResult> {

	private final String key;

	private final BatchMembers members;

	private final Deadline deadline;

	/**
	 * @param key the keys joined by commas, as the request names them
	 * @param members each key's slot, request and tracker, in the keys' global order
	 * @param executor runs the continuations: the blocking caller's thread, or the thread
	 * that completed the store's answer
	 */
	BatchAcquisition(HeldLock.Parts parts, Lifecycle lifecycle, String key, BatchMembers members, Deadline deadline,
			Executor executor) {
		super(parts, lifecycle, executor);
		this.key = key;
		this.members = members;
		this.deadline = deadline;
	}

	@Override
	String key() {
		return this.key;
	}

	@Override
	Deadline deadline() {
		return this.deadline;
	}

	@Override
	Duration expiresAfter() {
		return this.members.longestExpiry(this.parts.watchdog());
	}

	@Override
	String describe() {
		return "locks '" + this.key + "'";
	}

	BatchAcquisition start() {
		this.lifecycle.enter(this, this.key, this::fail, this.settled);
		CompletableFuture<Boolean> gates = new OrderedGates(this.members.slots(), this.parts.store(), this.deadline,
				this.executor)
			.take();
		if (gates.isDone() && !gates.isCompletedExceptionally() && gates.join()) {
			// Uncontended: every gate was free.
			attempt();
			return this;
		}
		waitingOn(gates);
		gates.whenCompleteAsync((all, failure) -> {
			if (this.result.isDone()) {
				abandon();
			}
			else if (failure != null || !all) {
				notAcquired();
			}
			else {
				attempt();
			}
		}, this.executor);
		return this;
	}

	@Override
	void attempt() {
		if (this.result.isDone()) {
			abandon();
			return;
		}
		long attemptStart = System.nanoTime();
		long lossReports = this.parts.losses().reports();
		List<Duration> leases = this.members.storeLeases(this.parts.watchdog());
		goOn(this.parts.store().tryAcquireAll(this.key, this.members.claims(), leases, retrying()), attemptStart,
				lossReports);
	}

	@Override
	boolean acquiredIn(MultiKeyAcquireResult attempt) {
		return attempt.acquired();
	}

	@Override
	void acquired(MultiKeyAcquireResult attempt, long attemptStart, long lossReports) {
		if (this.result.isDone()) {
			giveBack(this.members.claims());
			return;
		}
		List<HeldLock> locks = this.members.hold(this.parts, attempt.fencingTokens(), attemptStart);
		for (HeldLock lock : locks) {
			try {
				this.parts.watchdog().watch(lock);
			}
			catch (RejectedExecutionException ex) {
				// The watchdog's scheduler stopped: close() is running.
				fail(this.lifecycle.shuttingDown(this.key, ex));
			}
		}
		if (this.result.isDone() || this.lifecycle.isClosed()) {
			fail(this.lifecycle.shuttingDown(this.key, null));
			MultiKeyRelease.releaseTogether(this.parts.store(), locks, null)
				.whenComplete((released, failure) -> settle());
			return;
		}
		for (int i = locks.size() - 1; i >= 0; i--) {
			HeldLock lock = locks.get(i);
			// The last tracker first: each may have opened a scope on the caller's
			// thread, such as an observation's, which must close in reverse. Told before
			// a loss reported meanwhile, which a tracker tells of the hold.
			lock.tracker.acquired(lock.fencingToken);
			this.parts.losses().markLostIfReportedSince(lock, lossReports);
		}
		logWaited("Acquired", " in one call after waiting ");
		if (!this.result.complete(locks)) {
			// Ended from outside meanwhile: settled once the keys are given back, so that
			// an interrupted caller returns after their release.
			MultiKeyRelease.releaseTogether(this.parts.store(), locks, null)
				.whenComplete((released, failure) -> settle());
			return;
		}
		settle();
	}

	@Override
	void awaitRelease(MultiKeyAcquireResult attempt) {
		if (this.result.isDone()) {
			abandon();
			return;
		}
		if (this.deadline.hasPassed()) {
			notAcquired();
			return;
		}
		startWait(attempt);
	}

	@Override
	void startWait(MultiKeyAcquireResult attempt) {
		AcquireResult held = attempt.held();
		Deadline wakeAt = this.deadline;
		Duration holderLease = held.holderLeaseRemaining();
		if (holderLease != null && !holderLease.isNegative() && !holderLease.isZero()) {
			// Wake at the holder's expiry, plus a millisecond so the store has expired
			// it.
			wakeAt = wakeAt.atMost(holderLease.plusMillis(1));
		}
		LockBackend.Claim blocking = this.members.claims().get(attempt.heldIndex());
		CompletableFuture<Void> wait = this.parts.store().awaitRelease(blocking, held, wakeAt);
		waitingOn(wait);
		wait.whenCompleteAsync((released, failure) -> {
			if (failure != null && !this.result.isDone()) {
				backOff(failure);
			}
			else {
				attemptAgain();
			}
		}, this.executor);
	}

	/**
	 * The store may have applied the attempt before failing to answer: give every key
	 * back, and only then go on, as the next attempt presents the same owners.
	 */
	@Override
	void giveBackAfterFailure(Throwable failure, long attemptStart) {
		if (StoreCalls.isPermanent(failure)) {
			// A key or owner cannot be stored, or a key is held as another kind: trying
			// again cannot help, and nothing was taken.
			failed(failure);
			return;
		}
		if (this.deadline.hasPassed() || this.lifecycle.isClosed()) {
			// The caller hears of the failure now; the give-back needs no caller (off its
			// thread, retried in the background until the leases would end), and the
			// keys stay gated here until it is done.
			this.result.completeExceptionally(this.lifecycle.isClosed() ? this.lifecycle.shuttingDown(this.key, failure)
					: this.parts.store().failure(this.key, "acquire", failure));
			giveBack(this.members.claims().stream().map((claim) -> claim.on(null)).toList());
			return;
		}
		afterGiveBack(MultiKeyRelease.giveBack(this.parts.store(), this.members.claims(), giveBackLeaseEnds()),
				failure);
	}

	/** Gives back what an attempt took, or may have taken, then lets go of the keys. */
	private void giveBack(List<LockBackend.Claim> claims) {
		MultiKeyRelease.giveBack(this.parts.store(), claims, giveBackLeaseEnds())
			.whenCompleteAsync((released, failure) -> abandon(), this.executor);
	}

	private void notAcquired() {
		if (this.result.complete(null)) {
			logWaited("Did not acquire", " in one call within ");
		}
		abandon();
	}

	/** Lets go of every key locally: its gate, if taken, and its table entry. */
	@Override
	void abandon() {
		this.members.leave();
		settle();
	}

	/** Tells each key's tracker how the call ended, once, and lets go of the call. */
	private void settle() {
		if (this.settled.isDone()) {
			return;
		}
		Throwable failure = this.result.isCompletedExceptionally()
				? StoreCalls.unwrap(this.result.handle((locks, thrown) -> thrown).join()) : null;
		if (failure != null || this.result.getNow(null) == null) {
			this.members.notTaken(failure);
		}
		this.settled.complete(null);
	}

	/**
	 * Until when a give-back is retried: one lease after the store's answer, not after
	 * the attempt began, as the store took the keys when it answered, and a late answer
	 * left them in the store after the retries had stopped.
	 */
	private List<@Nullable Long> giveBackLeaseEnds() {
		return this.members.leaseEnds(this.parts.watchdog(), System.nanoTime());
	}

}
