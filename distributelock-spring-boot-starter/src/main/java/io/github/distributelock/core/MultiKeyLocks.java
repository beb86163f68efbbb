package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;

/**
 * Several keys taken all or nothing under one deadline, in one global order (the keys'
 * natural order, the same in every JVM), so that two callers whose sets overlap never
 * wait for each other in a cycle.
 * <p>
 * When the backend takes the keys in one call ({@link MultiKeyLockBackend}), they are
 * taken and released in one round trip each ({@link MultiKeyBatches}). Otherwise the
 * request is composed over the single-key acquisitions of the engine: the keys are taken
 * one after the other and released in the reverse order; if one key is not taken in time,
 * or fails, the keys taken so far are released before the caller hears of it, unless a
 * release is still behind a renewal in flight past the deadline
 * ({@link MultiKeyGiveBack}).
 */
final class MultiKeyLocks {

	private static final Comparator<LockRequest> BY_KEY = Comparator.comparing(LockRequest::key);

	private final DefaultDistributeLock lock;

	private final StoreCalls store;

	private final MultiKeyBatches batches;

	MultiKeyLocks(DefaultDistributeLock lock, StoreCalls store, MultiKeyBatches batches) {
		this.lock = lock;
		this.store = store;
		this.batches = batches;
	}

	Optional<LockHandle> tryAcquire(LockRequest request) throws InterruptedException {
		List<LockRequest> ordered = ordered(request);
		List<LockBackend.Claim> claims = this.batches.claims(request, ordered);
		if (claims != null) {
			return this.batches.tryAcquire(request, ordered, claims);
		}
		Deadline deadline = Deadline.after(request.waitTime());
		List<LockHandle> taken = new ArrayList<>();
		try {
			for (LockRequest part : ordered) {
				Optional<LockHandle> handle = this.lock.tryAcquire(part(request, part, deadline));
				if (handle.isEmpty()) {
					giveBack(taken, deadline);
					return Optional.empty();
				}
				taken.add(handle.get());
			}
		}
		catch (InterruptedException ex) {
			// As for one key: the caller waits for the give-backs until its deadline (or
			// one lease) at most; a store that does not answer them (a ZooKeeper release
			// waiting for the reconnection, a JDBC one for a pooled connection) kept it a
			// client timeout past it. They go on without it, and the keys stay gated here
			// until they are answered.
			deadline.atMost(longestExpiry(request, ordered))
				.awaitUninterruptibly(CompletableFuture.allOf(MultiKeyGiveBack.releaseInReverse(taken)));
			throw ex;
		}
		catch (RuntimeException ex) {
			giveBack(taken, deadline);
			throw ex;
		}
		return Optional.of(new MultiKeyHandle(request.key(), taken, null));
	}

	CompletableFuture<Optional<LockHandle>> tryAcquireAsync(LockRequest request) {
		List<LockRequest> ordered = ordered(request);
		List<LockBackend.Claim> claims = this.batches.claims(request, ordered);
		if (claims != null) {
			return this.batches.tryAcquireAsync(request, ordered, claims);
		}
		Deadline deadline = Deadline.after(request.waitTime());
		List<LockHandle> taken = new ArrayList<>();
		CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
		takeNext(request, ordered, 0, deadline, taken, result);
		return result;
	}

	private void takeNext(LockRequest request, List<LockRequest> parts, int index, Deadline deadline,
			List<LockHandle> taken, CompletableFuture<Optional<LockHandle>> result) {
		// A part taken at once (a free key, a store that answers on this thread) is
		// followed by the next one in this loop, not in a call nested in its
		// completion: a request of a few thousand keys overflowed the stack, and the
		// future that ran the continuation swallowed the error, leaving the request
		// neither taken nor ended, and its keys so far held.
		for (int next = index;; next++) {
			if (next == parts.size()) {
				if (!result.complete(Optional.of(new MultiKeyHandle(request.key(), taken, null)))) {
					MultiKeyGiveBack.releaseInReverse(taken);
				}
				return;
			}
			if (result.isDone()) {
				MultiKeyGiveBack.releaseInReverse(taken);
				return;
			}
			CompletableFuture<Optional<LockHandle>> part = this.lock
				.tryAcquireAsync(part(request, parts.get(next), deadline));
			result.whenComplete((done, failure) -> {
				// Completed by its caller (cancel, orTimeout) before this part was taken.
				if (!part.isDone()) {
					part.cancel(false);
				}
			});
			Optional<LockHandle> takenAtOnce = (part.isDone() && !part.isCompletedExceptionally()) ? part.join()
					: Optional.empty();
			if (takenAtOnce.isPresent()) {
				taken.add(takenAtOnce.get());
				continue;
			}
			int following = next + 1;
			part.whenComplete((handle, failure) -> {
				if (failure != null || handle.isEmpty()) {
					MultiKeyGiveBack.giveBack(taken, deadline, this.store).whenComplete((released, releaseFailure) -> {
						if (failure != null) {
							result.completeExceptionally(StoreCalls.unwrap(failure));
						}
						else {
							result.complete(Optional.empty());
						}
					});
					return;
				}
				taken.add(handle.get());
				takeNext(request, parts, following, deadline, taken, result);
			});
			return;
		}
	}

	/** The parts in the keys' global order; a plain sort, as a stream costs more here. */
	private static List<LockRequest> ordered(LockRequest request) {
		List<LockRequest> ordered = new ArrayList<>(request.parts());
		ordered.sort(BY_KEY);
		return ordered;
	}

	/**
	 * How long after its answer the lock of any part is gone from the store by itself:
	 * the taken parts answered before now, so a wait this long from now outlasts them.
	 */
	private Duration longestExpiry(LockRequest request, List<LockRequest> parts) {
		Duration longest = Duration.ZERO;
		for (LockRequest part : parts) {
			Duration lease = this.lock
				.expiresAfter((part.leaseTime() != null) ? part.leaseTime() : request.leaseTime());
			longest = (lease.compareTo(longest) > 0) ? lease : longest;
		}
		return longest;
	}

	/**
	 * One part as it is taken: with the combined request's wait, owner and name, and its
	 * lease, minimum hold and skip when busy for a part that sets none of its own.
	 */
	static LockRequest part(LockRequest request, LockRequest part, Deadline deadline) {
		LockRequest taken = part.withWaitTime(deadline.remaining());
		if (request.owner() != null) {
			taken = taken.withOwner(request.owner());
		}
		if (part.name() == null && request.name() != null) {
			taken = taken.withName(request.name());
		}
		if (part.leaseTime() == null && request.leaseTime() != null) {
			taken = taken.withLeaseTime(request.leaseTime());
		}
		if (part.minimumHold().isZero() && !request.minimumHold().isZero()) {
			taken = taken.withMinimumHold(request.minimumHold());
		}
		return (request.skipsWhenBusy()) ? taken.withSkipWhenBusy(true) : taken;
	}

	/**
	 * Gives the keys back and waits until every release has ended, or, past the deadline,
	 * until those on their way to the store have ({@link MultiKeyGiveBack}).
	 */
	private void giveBack(List<LockHandle> taken, Deadline deadline) {
		// Never completes exceptionally; join() waits whatever the interrupt flag, and
		// keeps it.
		MultiKeyGiveBack.giveBack(taken, deadline, this.store).join();
	}

}
