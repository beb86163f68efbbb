package io.github.distributelock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;

import org.jspecify.annotations.Nullable;

/**
 * The local gate of one key: callers of this JVM queue on it, so that only the one
 * holding it competes at the store. A waiter's wake-up completes with {@code false} when
 * the gate may be free (it then tries to take it), with {@code true} when the holder
 * passed it the gate to hand it the lock (see {@link LocalLocks}).
 * <p>
 * A gate is made with each key's entry, so at every uncontended acquisition: its flags
 * are fields set by compare-and-set rather than objects of their own, and its queue is
 * made by the first waiter (see {@link #queue()}).
 */
final class KeyGate {

	private static final VarHandle TAKEN;

	private static final VarHandle WAITERS;

	private static final VarHandle ARRIVAL;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			TAKEN = lookup.findVarHandle(KeyGate.class, "taken", boolean.class);
			WAITERS = lookup.findVarHandle(KeyGate.class, "waiters", ConcurrentLinkedDeque.class);
			ARRIVAL = lookup.findVarHandle(KeyGate.class, "arrival", CompletableFuture.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private volatile boolean taken;

	/**
	 * The callers waiting, {@code null} until the first one: set once, never unset, so a
	 * reader that finds none reads an empty queue.
	 */
	private volatile @Nullable ConcurrentLinkedDeque<Waiter> waiters;

	/**
	 * What the holder of the gate waits on for a caller to arrive at the gate or to leave
	 * the key, while it does; {@code null} otherwise, so that arrivals cost a read.
	 */
	private volatile @Nullable CompletableFuture<Void> arrival;

	/**
	 * How many times in a row the gate was passed on with the lock; only the holder of
	 * the gate reads or writes it, and the gate passes with a volatile write.
	 */
	private int handOvers;

	boolean tryTake() {
		return !this.taken && TAKEN.compareAndSet(this, false, true);
	}

	/** How many callers wait; counts them, so not for the release path. */
	int waiting() {
		ConcurrentLinkedDeque<Waiter> waiters = this.waiters;
		return (waiters != null) ? waiters.size() : 0;
	}

	boolean nobodyWaiting() {
		ConcurrentLinkedDeque<Waiter> waiters = this.waiters;
		return waiters == null || waiters.isEmpty();
	}

	/**
	 * The queue, made if there is none: its volatile compare-and-set comes before the
	 * waiter's read of {@link #taken}, as the queueing did when the queue was made with
	 * the gate, so a holder giving the gate back either finds the queue and the waiter in
	 * it, or is seen to have given it back by the waiter.
	 */
	private ConcurrentLinkedDeque<Waiter> queue() {
		ConcurrentLinkedDeque<Waiter> waiters = this.waiters;
		if (waiters == null) {
			ConcurrentLinkedDeque<Waiter> made = new ConcurrentLinkedDeque<>();
			waiters = WAITERS.compareAndSet(this, null, made) ? made : this.waiters;
		}
		return waiters;
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
		ConcurrentLinkedDeque<Waiter> waiters = queue();
		if (first) {
			waiters.addFirst(waiter);
		}
		else {
			waiters.addLast(waiter);
		}
		// The holder may have given the gate back before this waiter was queued, and then
		// woke nobody.
		if (!this.taken) {
			wakeNext();
		}
		signalArrival();
		wake.whenComplete((handedOver, failure) -> {
			if (failure != null && !waiters.remove(waiter)) {
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
		ConcurrentLinkedDeque<Waiter> waiters = this.waiters;
		if (waiters == null) {
			return null;
		}
		for (Waiter next; (next = waiters.peekFirst()) != null;) {
			if (next.successor() == null) {
				return null;
			}
			// A waiter that gave up meanwhile, or that another thread woke, is skipped.
			if (waiters.remove(next) && next.wake().complete(true)) {
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
		this.arrival = awaited;
		return awaited;
	}

	void stopAwaitingArrival(CompletableFuture<Void> awaited) {
		ARRIVAL.compareAndSet(this, awaited, null);
	}

	@SuppressWarnings("unchecked")
	void signalArrival() {
		if (this.arrival != null) {
			CompletableFuture<Void> awaited = (CompletableFuture<Void>) ARRIVAL.getAndSet(this, null);
			if (awaited != null) {
				awaited.complete(null);
			}
		}
	}

	void wakeNextIfFree() {
		if (!this.taken && !nobodyWaiting()) {
			wakeNext();
		}
	}

	void give() {
		this.handOvers = 0;
		this.taken = false;
		wakeNext();
	}

	private void wakeNext() {
		ConcurrentLinkedDeque<Waiter> waiters = this.waiters;
		if (waiters == null) {
			return;
		}
		for (Waiter next; (next = waiters.pollFirst()) != null;) {
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
