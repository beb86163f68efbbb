package io.github.distributelock.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * Multi-key requests that the backend takes in one call ({@link MultiKeyLockBackend}):
 * the blocking and the non-blocking way in to a {@link BatchAcquisition}, with each key's
 * reentrancy and table entry, and the handle they give.
 * <p>
 * Only plain exclusive keys are batched; a request with another kind of key, or whose
 * keys the backend does not take together, is composed of single-key acquisitions by
 * {@link MultiKeyLocks}.
 */
final class MultiKeyBatches {

	private static final Executor SAME_THREAD = Runnable::run;

	private final LocalLocks locks;

	private final HeldLock.Parts parts;

	private final Lifecycle lifecycle;

	private final LockEventListener events;

	private final Supplier<String> owners;

	MultiKeyBatches(LocalLocks locks, HeldLock.Parts parts, Lifecycle lifecycle, LockEventListener events,
			Supplier<String> owners) {
		this.locks = locks;
		this.parts = parts;
		this.lifecycle = lifecycle;
		this.events = events;
		this.owners = owners;
	}

	/**
	 * The claims of the request's parts, when the backend takes them in one call.
	 * @param request the multi-key request
	 * @param ordered its parts, in the keys' global order
	 * @return a claim per part, in that order, or {@code null} to take the parts one
	 * after the other
	 */
	@Nullable List<LockBackend.Claim> claims(LockRequest request, List<LockRequest> ordered) {
		if (!(this.parts.store().backend() instanceof MultiKeyLockBackend)) {
			return null;
		}
		List<LockBackend.Claim> claims = new ArrayList<>();
		for (LockRequest part : ordered) {
			if (part.permits() != 0 || part.mode() != LockMode.EXCLUSIVE || part.fair()) {
				return null;
			}
			String owner = (request.owner() != null) ? request.owner() : this.owners.get();
			claims.add(new LockBackend.Claim(part.key(), owner, null, LockKind.EXCLUSIVE, request.owner() == null));
		}
		return this.parts.store().batches(claims) ? claims : null;
	}

	Optional<LockHandle> tryAcquire(LockRequest request, List<LockRequest> ordered, List<LockBackend.Claim> claims)
			throws InterruptedException {
		refuseWhileAReleaseIsPending(request, claims);
		Deadline deadline = Deadline.after(request.waitTime());
		Object reentrancyOwner = (request.owner() == null) ? Thread.currentThread() : null;
		CallerRuns callerRuns = this.parts.store().callerRuns();
		Entered entered = enter(request, ordered, claims, deadline, reentrancyOwner, callerRuns);
		if (entered.members.isEmpty()) {
			return Optional.of(entered.handle(request, List.of()));
		}
		BatchAcquisition acquisition = new BatchAcquisition(this.parts, this.lifecycle, request.key(),
				new BatchMembers(entered.members), deadline, callerRuns)
			.start();
		try {
			List<HeldLock> taken = callerRuns.await(acquisition.result(),
					() -> acquisition.fail(new CancellationException("interrupted")));
			if (taken == null) {
				entered.giveBackReentered();
				return Optional.empty();
			}
			return Optional.of(entered.handle(request, taken));
		}
		catch (InterruptedException ex) {
			long interruptNanos = System.nanoTime();
			// Nothing is left in the store, and the caller waits for that until its
			// deadline (or one lease) at most, as for one key
			// (DefaultDistributeLock.tryAcquire); await() ended the call.
			acquisition.awaitSettledAfterInterrupt(interruptNanos);
			List<HeldLock> takenAnyway = acquisition.result().exceptionally((failure) -> null).getNow(null);
			if (takenAnyway != null) {
				acquisition.interruptedWaitEnd()
					.awaitUninterruptibly(MultiKeyRelease.releaseTogether(this.parts.store(), takenAnyway, null));
			}
			entered.giveBackReentered();
			Thread.interrupted();
			InterruptedException interrupted = new InterruptedException(
					"Interrupted while acquiring locks '" + request.key() + "' in " + this.parts.store().name());
			interrupted.initCause(ex);
			throw interrupted;
		}
		catch (ExecutionException ex) {
			entered.giveBackReentered();
			throw StoreCalls.asUnchecked(ex);
		}
	}

	CompletableFuture<Optional<LockHandle>> tryAcquireAsync(LockRequest request, List<LockRequest> ordered,
			List<LockBackend.Claim> claims) {
		try {
			refuseWhileAReleaseIsPending(request, claims);
		}
		catch (IllegalArgumentException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		Deadline deadline = Deadline.after(request.waitTime());
		Entered entered;
		try {
			entered = enter(request, ordered, claims, deadline, null, null);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		BatchMembers members = new BatchMembers(entered.members);
		BatchAcquisition acquisition;
		try {
			acquisition = new BatchAcquisition(this.parts, this.lifecycle, request.key(), members, deadline,
					SAME_THREAD)
				.start();
		}
		catch (RuntimeException ex) {
			members.leave();
			return CompletableFuture.failedFuture(ex);
		}
		CompletableFuture<Optional<LockHandle>> handle = new CompletableFuture<>();
		acquisition.result().whenComplete((taken, failure) -> {
			if (failure != null) {
				handle.completeExceptionally(StoreCalls.unwrap(failure));
			}
			else if (!handle.complete(Optional.ofNullable(taken).map((locks) -> entered.handle(request, locks)))
					&& taken != null) {
				// Cancelled as the locks came: nobody has their handle.
				MultiKeyRelease.releaseTogether(this.parts.store(), taken, null);
			}
		});
		handle.whenComplete((result, failure) -> DefaultDistributeLock.endedByTheCaller(acquisition, failure));
		members.detached();
		return handle;
	}

	/**
	 * Refuses the claims of an owner value the caller chose if a release of one of its
	 * keys with that value is still to be sent, as a single-key claim is refused: that
	 * release would end the new claim of the key.
	 */
	private void refuseWhileAReleaseIsPending(LockRequest request, List<LockBackend.Claim> claims) {
		if (request.owner() == null) {
			return;
		}
		for (LockBackend.Claim claim : claims) {
			this.parts.store().refuseWhileAReleaseIsPending(claim.key(), claim.owner());
		}
	}

	/**
	 * Enters each key's table entry, in order; a key this owner holds already is
	 * re-entered instead of being asked of the store. The keys asked of the store get
	 * their trackers only then, as a tracker may open a scope on the caller's thread that
	 * only the end of the call closes.
	 * @throws io.github.distributelock.LockKindConflictException if the owner holds a key
	 * in a way the request cannot join; nothing is entered then
	 */
	private Entered enter(LockRequest request, List<LockRequest> ordered, List<LockBackend.Claim> claims,
			Deadline deadline, @Nullable Object reentrancyOwner, @Nullable Executor callerExecutor) {
		Entered entered = new Entered(ordered.size());
		LocalLocks.@Nullable Slot[] slots = new LocalLocks.Slot[ordered.size()];
		for (int i = 0; i < ordered.size(); i++) {
			LocalLocks.Slot slot = this.locks.enter(ordered.get(i).key());
			HeldLock reentered;
			try {
				// Refused as a single key's re-entry is once close() has begun.
				reentered = this.lifecycle.isClosed() ? null
						: slot.reentrant(reentrancyOwner, LockKind.EXCLUSIVE, this.parts.store().name());
			}
			catch (RuntimeException ex) {
				slot.leave(null);
				for (int j = 0; j < i; j++) {
					if (slots[j] != null) {
						slots[j].leave(null);
					}
				}
				entered.giveBackReentered();
				throw ex;
			}
			if (reentered != null) {
				slot.leave(null);
				entered.handles[i] = reentered.newHandle();
			}
			else {
				slots[i] = slot;
				String owner = request.owner();
				if (owner != null) {
					slot.useOwner(owner);
				}
			}
		}
		for (int i = 0; i < ordered.size(); i++) {
			if (slots[i] == null) {
				continue;
			}
			try {
				entered.members.add(member(request, ordered.get(i), claims.get(i), slots[i], deadline, reentrancyOwner,
						callerExecutor));
			}
			catch (RuntimeException | Error ex) {
				// An application's listener threw from acquiring(...): the call fails
				// with it
				// as a single key's does, and leaves nothing entered or re-entered
				// behind.
				entered.members.forEach((member) -> member.tracker().failed(ex));
				for (LocalLocks.Slot slot : slots) {
					if (slot != null) {
						slot.leave(null);
					}
				}
				entered.giveBackReentered();
				throw ex;
			}
		}
		return entered;
	}

	private BatchMembers.Member member(LockRequest request, LockRequest part, LockBackend.Claim claim,
			LocalLocks.Slot slot, Deadline deadline, @Nullable Object reentrancyOwner,
			@Nullable Executor callerExecutor) {
		LockRequest taken = MultiKeyLocks.part(request, part, deadline);
		String name = taken.name();
		LockTracker tracker = (this.events == LockEventListener.NONE) ? LockTracker.NONE
				: this.events.acquiring(part.key(), (name != null) ? name : LockNames.fromKey(part.key()),
						this.parts.store().name(), LockKind.EXCLUSIVE);
		// The caller's deadline, as a single key's claim has: a store may bound its
		// attempt by it.
		LockBackend.Claim bounded = claim.until(deadline);
		Acquisition.Request wanted = new Acquisition.Request(
				(callerExecutor != null) ? bounded.on(callerExecutor) : bounded, taken.leaseTime(), deadline,
				reentrancyOwner, taken.minimumHold(), taken.skipsWhenBusy(), taken.owner() != null);
		return new BatchMembers.Member(slot, wanted, tracker);
	}

	/**
	 * The keys of one call: the handles of those re-entered, and the members that go to
	 * the store, in the keys' global order.
	 */
	private final class Entered {

		final @Nullable LockHandle[] handles;

		final List<BatchMembers.Member> members = new ArrayList<>();

		Entered(int keys) {
			this.handles = new LockHandle[keys];
		}

		/** The handle of every key, with the locks the store gave, in members' order. */
		LockHandle handle(LockRequest request, List<HeldLock> taken) {
			List<LockHandle> all = new ArrayList<>(this.handles.length);
			int next = 0;
			for (LockHandle reentered : this.handles) {
				all.add((reentered != null) ? reentered : taken.get(next++).newHandle());
			}
			return new MultiKeyHandle(request.key(), all, MultiKeyBatches.this.parts.store());
		}

		/** Gives back the holds of the keys re-entered, as the call took none. */
		void giveBackReentered() {
			Arrays.stream(this.handles).filter((handle) -> handle != null).forEach(LockHandle::close);
		}

	}

}
