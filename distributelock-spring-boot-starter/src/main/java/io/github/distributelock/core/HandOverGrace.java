package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * The grace a releasing holder gives a caller of this JVM on its way to the gate of the
 * key, to hand it the lock rather than release it in the store.
 */
final class HandOverGrace {

	/**
	 * How long a releasing holder waits for a caller of this JVM on its way to the gate
	 * of the key, to hand it the lock: a few of its steps, far less than a round trip
	 * that a release and its next attempt would cost.
	 */
	private static final Duration ARRIVAL_GRACE = Duration.ofMillis(1);

	private static final TimeoutException ARRIVAL_GRACE_PASSED = new TimeoutException(
			"no caller arrived at the gate in time");

	private HandOverGrace() {
	}

	/**
	 * The caller of this JVM to hand a lock of {@code kind} to: one that waits for it
	 * now, or one that entered the key and is on its way to the gate, waited for a grace.
	 * Under contention the holder's next caller is often a step short of the gate when
	 * the holder releases, and a release then costs a round trip more, with another
	 * instance's waiter and that caller racing for the key. A caller that releases on its
	 * own thread ends the grace there too, not only by the scheduler's timer: a caller
	 * that entered the key may stay short of its gate far longer (a multi-key call
	 * waiting at the gate of another of its keys), and a busy scheduler would keep the
	 * release waiting for it as long.
	 */
	static CompletableFuture<@Nullable Acquisition> successor(LocalLocks.Slot slot, LockKind kind, StoreCalls store,
			@Nullable Executor callerExecutor) {
		return successor(slot, kind, store, Deadline.after(ARRIVAL_GRACE), callerExecutor);
	}

	private static CompletableFuture<@Nullable Acquisition> successor(LocalLocks.Slot slot, LockKind kind,
			StoreCalls store, Deadline grace, @Nullable Executor callerExecutor) {
		CompletableFuture<Void> arrival = slot.awaitArrival();
		Acquisition next = slot.successor(kind);
		if (next != null || grace.hasPassed() || !slot.callerOnItsWayToTheGate()) {
			slot.stopAwaitingArrival(arrival);
			return CompletableFuture.completedFuture(next);
		}
		store.expire(arrival, grace, ARRIVAL_GRACE_PASSED, callerExecutor);
		return arrival.handle((arrived, gracePassed) -> grace)
			.thenCompose((sameGrace) -> successor(slot, kind, store, sameGrace, callerExecutor));
	}

}
