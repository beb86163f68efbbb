package io.github.distributelock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The local gate of one key: callers of this JVM queue on it, so that only the one
 * holding it competes at the store. A waiter's wake-up completes with {@code false} when
 * the gate may be free (it then tries to take it), with {@code true} when the holder
 * passed it the gate to hand it the lock (see {@link LocalLocks}).
 */
final class KeyGate {

	private final AtomicBoolean taken = new AtomicBoolean();

	private final ConcurrentLinkedDeque<Waiter> waiters = new ConcurrentLinkedDeque<>();

	/**
	 * What the holder of the gate waits on for a caller to arrive at the gate or to leave
	 * the key, while it does; {@code null} otherwise, so that arrivals cost a read.
	 */
	private final AtomicReference<@Nullable CompletableFuture<Void>> arrival = new AtomicReference<>();

	/**
	 * How many times in a row the gate was passed on with the lock; only the holder of
	 * the gate reads or writes it, and the gate passes with a volatile write.
	 */
	private int handOvers;

	boolean tryTake() {
		return !this.taken.get() && this.taken.compareAndSet(false, true);
	}

	/** How many callers wait; counts them, so not for the release path. */
	int waiting() {
		return this.waiters.size();
	}

	boolean nobodyWaiting() {
		return this.waiters.isEmpty();
	}

	int handOvers() {
		return this.handOvers;
	}

	/**
	 * Queues a caller, first when it was woken and lost the gate to a caller that came
	 * meanwhile.
	 */
	CompletableFuture<Boolean> await(boolean first, LocalLocks.Slot slot, @Nullable Acquisition successor) {
		CompletableFuture<Boolean> wake = new CompletableFuture<>();
		Waiter waiter = new Waiter(wake, slot, successor);
		if (first) {
			this.waiters.addFirst(waiter);
		}
		else {
			this.waiters.addLast(waiter);
		}
		// The holder may have given the gate back before this waiter was queued, and then
		// woke nobody.
		if (!this.taken.get()) {
			wakeNext();
		}
		signalArrival();
		wake.whenComplete((handedOver, failure) -> {
			if (failure != null && !this.waiters.remove(waiter)) {
				// Given up (deadline, cancel) as it was woken: the wake-up must reach
				// another waiter.
				wakeNext();
			}
		});
		return wake;
	}

	/**
	 * Passes the gate to the first waiter, whose wake-up completes with {@code true}:
	 * from then on its slot owns the gate.
	 * @return that waiter, or {@code null} if nobody waits or the first waiter takes no
	 * lock alone (a multi-key request, to which the gate is given instead)
	 */
	@Nullable Waiter passOn() {
		for (Waiter next; (next = this.waiters.peekFirst()) != null;) {
			if (next.successor() == null) {
				return null;
			}
			// A waiter that gave up meanwhile, or that another thread woke, is skipped.
			if (this.waiters.remove(next) && next.wake().complete(true)) {
				this.handOvers++;
				return next;
			}
		}
		return null;
	}

	/**
	 * Completes when a caller next arrives at the gate or leaves the key; for the holder
	 * of the gate, who waits for one at a time.
	 */
	CompletableFuture<Void> awaitArrival() {
		CompletableFuture<Void> awaited = new CompletableFuture<>();
		this.arrival.set(awaited);
		return awaited;
	}

	void stopAwaitingArrival(CompletableFuture<Void> awaited) {
		this.arrival.compareAndSet(awaited, null);
	}

	void signalArrival() {
		if (this.arrival.get() != null) {
			CompletableFuture<Void> awaited = this.arrival.getAndSet(null);
			if (awaited != null) {
				awaited.complete(null);
			}
		}
	}

	void wakeNextIfFree() {
		if (!this.taken.get() && !this.waiters.isEmpty()) {
			wakeNext();
		}
	}

	void give() {
		this.handOvers = 0;
		this.taken.set(false);
		wakeNext();
	}

	private void wakeNext() {
		for (Waiter next; (next = this.waiters.pollFirst()) != null;) {
			if (next.wake().complete(false)) {
				return;
			}
		}
	}

	/**
	 * A caller waiting for the gate, and the acquisition that takes the lock if the gate
	 * is passed to it; a caller without one (a multi-key request) is only ever woken with
	 * {@code false}.
	 */
	record Waiter(CompletableFuture<Boolean> wake, LocalLocks.Slot slot, @Nullable Acquisition successor) {

	}

}
