package io.github.distributelock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * What this JVM knows of the keys it holds or waits for: a table entry per key while it
 * has users, the key's local gate, the locks held through it, and reentrancy. A call
 * enters through {@link #enter(String)} and leaves through the {@link Slot} it gets,
 * once, whatever happens in between.
 * <p>
 * Reentrancy, per owner (a thread): an exclusive or fair holder re-enters either; a
 * writer re-enters for writing and for reading its own key; a reader re-enters for
 * reading, and is refused at once if it asks for the write lock (two readers upgrading
 * would wait for each other forever); a permit holder re-enters its permit. Any other mix
 * of kinds on one key is refused at once.
 * <p>
 * Callers of one JVM queue on the key's gate, so only the one that holds it competes at
 * the store: local contention costs no store round trips, and the hand-off between local
 * callers needs no notification from the store.
 * <p>
 * The gate is not fair, for the reason {@link java.util.concurrent.locks.ReentrantLock}
 * is not by default: a caller that arrives while the gate is free takes it at once, and a
 * woken waiter that finds it taken again waits at the head of the queue. Under contention
 * that keeps a key busy in the JVM that holds it instead of handing it across the network
 * at each release (measured in the benchmarks: about 1.5x the acquisitions per second
 * with 4 threads in one JVM and with 2 JVMs of 2). The price: a queued caller can be
 * overtaken by callers that arrive while the gate is free, always bounded by its wait
 * time.
 * <p>
 * On a store that can {@link HandOverLockBackend hand a lock over}, a holder that
 * releases while callers wait at the gate passes the gate, and the lock in the store with
 * it, to the first of them: one round trip per hand-off instead of a release and an
 * acquisition, and no caller can overtake the waiters. After
 * {@link #LONGEST_HAND_OVER_RUN} hand-overs in a row the lock is released in the store
 * instead, so that the waiters of other instances, woken by that release, get a chance at
 * it (not a turn: this JVM's next caller races them; the fair lock gives turns).
 */
final class LocalLocks {

	/**
	 * How many times in a row a key is handed from one caller of this JVM to the next
	 * before it is released in the store for the other instances to compete for. A
	 * hand-off costs about a tenth of a millisecond on a local network, so a run keeps
	 * the waiters of other instances out for a few milliseconds at most, while most
	 * hand-offs under contention cost one round trip instead of two.
	 */
	static final int LONGEST_HAND_OVER_RUN = 32;

	/*
	 * A slot's flags, made and dropped with each call: fields set by compare-and-set
	 * rather than three AtomicBoolean objects.
	 */
	private static final VarHandle GATE_TAKEN;

	private static final VarHandle LEFT;

	private static final VarHandle OFF_THE_GATE;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			GATE_TAKEN = lookup.findVarHandle(Slot.class, "gateTaken", boolean.class);
			LEFT = lookup.findVarHandle(Slot.class, "left", boolean.class);
			OFF_THE_GATE = lookup.findVarHandle(Slot.class, "offTheGate", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final ConcurrentHashMap<String, LocalKey> entries = new ConcurrentHashMap<>();

	/** Enters the key's entry, creating it if this JVM has no user of the key yet. */
	Slot enter(String key) {
		LocalKey entry = this.entries.compute(key, (k, current) -> {
			LocalKey entered = (current != null) ? current : new LocalKey(k);
			entered.users++;
			return entered;
		});
		return new Slot(entry);
	}

	/** The lock this JVM holds on {@code key} for {@code owner}, if any. */
	@Nullable HeldLock held(String key, String owner) {
		LocalKey entry = this.entries.get(key);
		if (entry == null) {
			return null;
		}
		HeldLock exclusive = entry.held();
		if (exclusive != null && exclusive.owner().equals(owner)) {
			return exclusive;
		}
		for (HeldLock shared : entry.shared()) {
			if (shared.owner().equals(owner)) {
				return shared;
			}
		}
		return null;
	}

	List<HeldLock> held() {
		List<HeldLock> held = new ArrayList<>();
		for (LocalKey entry : this.entries.values()) {
			HeldLock lock = entry.held();
			if (lock != null) {
				held.add(lock);
			}
			held.addAll(entry.shared());
		}
		return held;
	}

	int size() {
		return this.entries.size();
	}

	/** How many callers of this JVM wait at the gate of {@code key}. */
	int waitingAtGate(String key) {
		LocalKey entry = this.entries.get(key);
		return (entry != null) ? entry.gate.waiting() : 0;
	}

	private void leave(LocalKey entry, @Nullable String usedOwner) {
		this.entries.computeIfPresent(entry.key, (k, current) -> {
			if (current != entry) {
				return current;
			}
			if (usedOwner != null && current.ownersInUse != null) {
				current.ownersInUse.computeIfPresent(usedOwner, (owner, uses) -> (uses == 1) ? null : uses - 1);
			}
			current.users--;
			return (current.users == 0) ? null : current;
		});
		entry.gate.signalArrival();
	}

	/**
	 * Whether a call of this JVM that chose {@code owner} as its owner value uses
	 * {@code key}: it waits for it, attempts it, or holds it.
	 */
	private boolean ownerInUse(String key, String owner) {
		boolean[] inUse = new boolean[1];
		this.entries.computeIfPresent(key, (k, current) -> {
			inUse[0] = current.ownersInUse != null && current.ownersInUse.containsKey(owner);
			return current;
		});
		return inUse[0];
	}

	/**
	 * One call's use of a key: it may take the gate, hold the lock, and leaves once.
	 */
	final class Slot {

		private final LocalKey entry;

		private volatile boolean gateTaken;

		private volatile boolean left;

		private volatile @Nullable String claimedOwner;

		/** The owner value this call chose, noted by {@link #useOwner(String)}. */
		private volatile @Nullable String usedOwner;

		/**
		 * Whether this caller never comes to the gate (see {@link #keepOffTheGate()}).
		 */
		private volatile boolean offTheGate;

		private Slot(LocalKey entry) {
			this.entry = entry;
		}

		String key() {
			return this.entry.key;
		}

		/**
		 * Whether this JVM holds the slot's key again for the owner of {@code lock}, by a
		 * lock other than it: a claim with the same owner value taken after {@code lock}
		 * was lost.
		 */
		boolean claimedAgain(HeldLock lock) {
			HeldLock current = held(key(), lock.owner());
			return (current != null && current != lock) || ownerInUse(key(), lock.owner());
		}

		/**
		 * Notes that this call chose {@code owner} as its owner value, until it leaves:
		 * the release of a lost lock with that value, checked by owner only, would end
		 * what this call takes (see {@link #claimedAgain(HeldLock)}). Before the call's
		 * first attempt, so that such a release either sees this call, or is pending when
		 * the attempt looks for releases to send first.
		 */
		void useOwner(String owner) {
			LocalKey entry = this.entry;
			LocalLocks.this.entries.computeIfPresent(entry.key, (k, current) -> {
				if (current == entry) {
					if (current.ownersInUse == null) {
						current.ownersInUse = new HashMap<>();
					}
					current.ownersInUse.merge(owner, 1, Integer::sum);
				}
				return current;
			});
			this.usedOwner = owner;
		}

		/**
		 * The lock this JVM holds on the key for {@code reentrancyOwner} that a request
		 * of {@code kind} re-enters, or {@code null} if it must be acquired.
		 * @throws io.github.distributelock.LockKindConflictException if the owner holds
		 * the key in a way the request cannot join
		 */
		@Nullable HeldLock reentrant(@Nullable Object reentrancyOwner, LockKind kind, String backend) {
			if (reentrancyOwner == null) {
				return null;
			}
			HeldLock held = this.entry.held();
			if (held == null || held.reentrancyOwner != reentrancyOwner || !held.isHeld()) {
				held = this.entry.shared(reentrancyOwner);
				if (held == null || !held.isHeld()) {
					return null;
				}
			}
			if (!held.kind().admitsReentryAs(kind)) {
				throw held.kind().reentryConflict(kind, this.entry.key, backend, "this thread");
			}
			return held.reenter(reentrancyOwner) ? held : null;
		}

		/**
		 * Claims the key for an owner value the caller chose, for a lock of a kind whose
		 * store entries are told apart by owner, until this slot leaves.
		 * @throws IllegalArgumentException if a call of this JVM holds or waits for the
		 * key with that owner value: the two would share one entry in the store, and the
		 * first release would end both
		 */
		void claimOwner(String owner, LockKind kind, String backend) {
			if (!this.entry.claimOwner(owner)) {
				throw new IllegalArgumentException("The owner value (lockValue) of this " + kind.tag() + " lock on '"
						+ this.entry.key + "' in " + backend + " already holds or waits for that key in this "
						+ "instance: the store tells the holders of a fair, read/write or permit lock apart by "
						+ "their owner value, so two claims with one value would share one entry, and the first "
						+ "release would end both. Give each claim its own value (a UUID), or none: the starter "
						+ "then makes one.");
			}
			this.claimedOwner = owner;
		}

		/**
		 * Takes the gate at once if it is free.
		 */
		boolean tryTakeGate() {
			if (this.entry.gate.tryTake()) {
				this.gateTaken = true;
				// A slot left on another thread (a cancel) between the take and the mark
				// above found no gate to give back: give it here, or it stays taken for
				// every later caller of the key. leave() marks, then reads; this marks,
				// then reads: one of the two sees the other.
				if (this.left && GATE_TAKEN.compareAndSet(this, true, false)) {
					this.entry.gate.give();
					return false;
				}
				return true;
			}
			return false;
		}

		/**
		 * The release of the key's exclusive, fair or write lock by a caller of this JVM
		 * that is on its way to the store, or {@code null} if none is: a caller past its
		 * deadline waits for it, as the key is being given back, not busy. Until it
		 * completes, this caller is not one {@linkplain #callerOnItsWayToTheGate() on its
		 * way to the gate}: the releasing holder may be waiting for it to arrive there,
		 * while it waits for that very release, and the two would wait for each other
		 * until the scheduler's timer ends the holder's wait, late when it is busy.
		 */
		@Nullable CompletableFuture<@Nullable Void> waitForReleaseInFlight() {
			LocalKey entry = this.entry;
			if (this.offTheGate) {
				HeldLock held = entry.held();
				return (held != null) ? held.releaseInFlight() : null;
			}
			// Counted before the read: a holder that set its release in flight after the
			// read sees the count, or awaited an arrival before it, which the signal
			// below then ends.
			entry.addWaitingForRelease(1);
			HeldLock held = entry.held();
			CompletableFuture<@Nullable Void> release = (held != null) ? held.releaseInFlight() : null;
			if (release == null) {
				entry.addWaitingForRelease(-1);
				return null;
			}
			entry.gate.signalArrival();
			return release.whenComplete((ended, failure) -> entry.addWaitingForRelease(-1));
		}

		/**
		 * Marks this caller as one that never comes to the gate until it leaves: a kind
		 * other than plain exclusive, which shares the key or keeps its order in the
		 * store. A holder releasing the key's plain lock then does not wait for it to
		 * arrive at the gate, which it would for as long as the caller waits in the store
		 * while the scheduler that ends that wait is busy.
		 */
		void keepOffTheGate() {
			if (OFF_THE_GATE.compareAndSet(this, false, true)) {
				// Counted before the signal, as in waitForReleaseInFlight().
				this.entry.addOffTheGate(1);
				this.entry.gate.signalArrival();
			}
		}

		/**
		 * Completes when the gate may be free: the caller then tries again with
		 * {@link #tryTakeGate()}, and if that fails waits again with {@code first}.
		 * Cancelling it gives the wake-up to the next waiter.
		 */
		CompletableFuture<Boolean> awaitGate(boolean first, @Nullable Acquisition successor) {
			return this.entry.gate.await(first, this, successor);
		}

		/**
		 * The caller of this JVM that a holder releasing a lock of {@code kind} hands it
		 * over to, if any: the first waiting at the gate for a plain lock, the first of
		 * this JVM queued in the store for a fair lock (the store hands it over only if
		 * that waiter heads its queue, so arrival order across instances is kept).
		 */
		@Nullable Acquisition successor(LockKind kind) {
			return (kind.type() == LockKind.Type.FAIR) ? firstInStoreQueue() : handOverGate();
		}

		/**
		 * Whether a caller of this JVM that entered the key is on its way to the gate,
		 * where the holder of the gate could hand it the lock once it arrives: nobody
		 * waits at the gate yet, a user of the key other than the holder neither waits
		 * for the holder's release instead nor is of a kind that never comes to the gate,
		 * and the key's plain lock was not handed over too many times in a row.
		 */
		boolean callerOnItsWayToTheGate() {
			LocalKey entry = this.entry;
			return this.gateTaken && entry.gate.nobodyWaiting()
					&& entry.users - entry.waitingForRelease() - entry.offTheGate() > 1
					&& entry.gate.handOvers() < LONGEST_HAND_OVER_RUN;
		}

		/**
		 * Completes when a caller of this JVM next arrives at the gate of the key or
		 * leaves the key; for the holder of the gate, who waits for one at a time.
		 */
		CompletableFuture<Void> awaitArrival() {
			return this.entry.gate.awaitArrival();
		}

		/** Stops waiting for the arrival that {@link #awaitArrival()} returned. */
		void stopAwaitingArrival(CompletableFuture<Void> arrival) {
			this.entry.gate.stopAwaitingArrival(arrival);
		}

		/** Counts {@code waiter} among the callers of this JVM queued in the store. */
		void waitInStoreQueue(Acquisition waiter) {
			this.entry.waitInStoreQueue(waiter);
		}

		void leaveStoreQueue(Acquisition waiter) {
			this.entry.leaveStoreQueue(waiter);
		}

		/**
		 * The first caller of this JVM in the store's queue, if it waits there now; one
		 * further back is behind it in the store's queue too, so it is never the head.
		 */
		private @Nullable Acquisition firstInStoreQueue() {
			Acquisition first = this.entry.firstInStoreQueue();
			return (first != null && first.claimForHandOver()) ? first : null;
		}

		/**
		 * Passes the gate this slot took to the first caller waiting for it, which then
		 * takes the lock by hand-over: its wake-up completes with {@code true}, and from
		 * then on its slot owns the gate.
		 * @return the acquisition that now owns the gate, or {@code null} if nobody
		 * waits, or the key was handed over too many times in a row, and the lock is to
		 * be released in the store
		 */
		private @Nullable Acquisition handOverGate() {
			if (!this.gateTaken || this.entry.gate.handOvers() >= LONGEST_HAND_OVER_RUN) {
				return null;
			}
			KeyGate.Waiter next = this.entry.gate.passOn();
			if (next == null) {
				return null;
			}
			this.gateTaken = false;
			next.slot().gateTaken = true;
			return next.successor();
		}

		/** Records the lock taken through this slot. */
		void hold(HeldLock lock) {
			if (lock.kind().shared()) {
				this.entry.holdShared((lock.reentrancyOwner != null) ? lock.reentrancyOwner : lock, lock);
			}
			else {
				this.entry.hold(lock);
			}
		}

		/**
		 * Leaves the key, once: gives the gate back if this slot took it, clears the held
		 * lock if it was this slot's, and drops the table entry when nobody else uses the
		 * key.
		 */
		void leave(@Nullable HeldLock lock) {
			if (!LEFT.compareAndSet(this, false, true)) {
				return;
			}
			if (lock != null) {
				this.entry.unhold(lock);
			}
			if (lock != null && lock.kind().shared()) {
				this.entry.unholdShared(lock);
			}
			String owner = this.claimedOwner;
			if (owner != null) {
				this.entry.unclaimOwner(owner);
			}
			if (GATE_TAKEN.compareAndSet(this, true, false)) {
				this.entry.gate.give();
			}
			else {
				// A wake-up this slot got as it gave up must reach the next waiter.
				this.entry.gate.wakeNextIfFree();
			}
			if (this.offTheGate) {
				this.entry.addOffTheGate(-1);
			}
			LocalLocks.this.leave(this.entry, this.usedOwner);
		}

	}

}
