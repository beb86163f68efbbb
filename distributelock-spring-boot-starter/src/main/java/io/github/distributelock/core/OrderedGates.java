package io.github.distributelock.core;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/**
 * This JVM's gates of several keys, taken one after the other in the keys' global order,
 * each waited for until one deadline, as {@link Acquisition} waits for one key's gate.
 * <p>
 * The order is what keeps two local callers whose sets of keys overlap from waiting for
 * each other in a cycle. A gate taken stays taken until its slot is left; giving up (the
 * deadline, or cancelling the result) takes no further gate, and gives a wake-up received
 * meanwhile to the next waiter.
 */
final class OrderedGates {

	private static final TimeoutException GATE_TIMEOUT = new TimeoutException("wait time passed at the local gate");

	private final List<LocalLocks.Slot> slots;

	private final StoreCalls store;

	private final Deadline deadline;

	private final Executor executor;

	private final CompletableFuture<Boolean> taken = new CompletableFuture<>();

	private volatile @Nullable CompletableFuture<Boolean> wake;

	/** How many gates are taken; only the continuations of this call change it. */
	private int next;

	OrderedGates(List<LocalLocks.Slot> slots, StoreCalls store, Deadline deadline, Executor executor) {
		this.slots = slots;
		this.store = store;
		this.deadline = deadline;
		this.executor = executor;
		this.taken.whenComplete((all, failure) -> {
			CompletableFuture<Boolean> waiting = this.wake;
			if (failure != null && waiting != null) {
				waiting.cancel(false);
			}
		});
	}

	/**
	 * Takes every gate: completes with {@code true} once all are taken, at once when they
	 * are free; with {@code false} when the deadline came first. Cancelling it stops the
	 * wait.
	 */
	CompletableFuture<Boolean> take() {
		takeFree();
		return this.taken;
	}

	private void takeFree() {
		while (this.next < this.slots.size()) {
			if (this.taken.isDone()) {
				return;
			}
			if (!this.slots.get(this.next).tryTakeGate()) {
				if (this.deadline.hasPassed()) {
					deadlinePassed();
				}
				else {
					await(false);
				}
				return;
			}
			this.next++;
		}
		this.taken.complete(true);
	}

	/**
	 * The deadline passed with the next gate taken: if by a caller of this JVM whose
	 * release of the key is on its way to the store, waits for that release (one round
	 * trip, as for {@link Acquisition}) and takes the gate if it is then free.
	 */
	private void deadlinePassed() {
		LocalLocks.Slot slot = this.slots.get(this.next);
		CompletableFuture<@Nullable Void> release = slot.waitForReleaseInFlight();
		if (release == null) {
			this.taken.complete(false);
			return;
		}
		release.whenCompleteAsync((ended, failure) -> {
			if (this.taken.isDone()) {
				return;
			}
			if (slot.tryTakeGate()) {
				this.next++;
				takeFree();
			}
			else {
				this.taken.complete(false);
			}
		}, this.executor);
	}

	private void await(boolean first) {
		LocalLocks.Slot slot = this.slots.get(this.next);
		// No successor: a holder of one of the keys cannot hand it this call, which needs
		// every key; it gives the gate back instead.
		CompletableFuture<Boolean> woken = slot.awaitGate(first, null);
		this.wake = woken;
		if (this.taken.isDone()) {
			woken.cancel(false);
			return;
		}
		this.store.expire(woken, this.deadline, GATE_TIMEOUT, this.executor);
		woken.whenCompleteAsync((done, failure) -> {
			if (this.taken.isDone()) {
				return;
			}
			if (failure != null) {
				deadlinePassed();
			}
			else if (slot.tryTakeGate()) {
				this.next++;
				takeFree();
			}
			else {
				await(true);
			}
		}, this.executor);
	}

}
