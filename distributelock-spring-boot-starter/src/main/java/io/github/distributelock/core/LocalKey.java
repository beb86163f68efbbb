package io.github.distributelock.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

import org.jspecify.annotations.Nullable;

/**
 * A key this JVM uses: a table entry of {@link LocalLocks} while the key has users. The
 * user count and {@link #ownersInUse} are guarded by the table's per-key compute.
 * <p>
 * A plain exclusive lock, the common case, uses the gate, the holder and two counts only:
 * the structures of the other kinds (the fair callers' queue, the shared holders, the
 * owner values of claims) are made by their first writer, an entry being made and dropped
 * at every uncontended acquisition (with the gate's queue and the Atomic* objects, 384 of
 * the 2,880 bytes that an acquisition and release allocated on an in-memory store). Each
 * is set once, by a compare-and-set on a volatile field that publishes it whole, and
 * never unset: a reader that finds none reads an empty one, as every write to it comes
 * after that set.
 */
final class LocalKey {

	private static final VarHandle HELD;

	private static final VarHandle WAITING_FOR_RELEASE;

	private static final VarHandle OFF_THE_GATE;

	private static final VarHandle STORE_QUEUE;

	private static final VarHandle SHARED;

	private static final VarHandle KIND_OWNERS;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			HELD = lookup.findVarHandle(LocalKey.class, "held", HeldLock.class);
			WAITING_FOR_RELEASE = lookup.findVarHandle(LocalKey.class, "waitingForRelease", int.class);
			OFF_THE_GATE = lookup.findVarHandle(LocalKey.class, "offTheGate", int.class);
			STORE_QUEUE = lookup.findVarHandle(LocalKey.class, "storeQueue", ConcurrentLinkedDeque.class);
			SHARED = lookup.findVarHandle(LocalKey.class, "shared", ConcurrentHashMap.class);
			KIND_OWNERS = lookup.findVarHandle(LocalKey.class, "kindOwners", Set.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	final String key;

	final KeyGate gate = new KeyGate();

	volatile int users;

	/**
	 * How many users of the key wait for its release in flight rather than for the gate
	 * (see {@link LocalLocks.Slot#waitForReleaseInFlight()}).
	 */
	private volatile int waitingForRelease;

	/**
	 * How many users of the key never come to its gate (see
	 * {@link LocalLocks.Slot#keepOffTheGate()}).
	 */
	private volatile int offTheGate;

	/**
	 * The exclusive, fair or write holder; cleared only by its own leave, which may come
	 * after a holder it handed the lock to is set.
	 */
	private volatile @Nullable HeldLock held;

	/**
	 * The fair callers of this JVM queued in the store for the key, in the order they
	 * first waited there; {@code null} until one does.
	 */
	private volatile @Nullable ConcurrentLinkedDeque<Acquisition> storeQueue;

	/**
	 * The readers and permit holders, by reentrancy owner; {@code null} until one holds.
	 */
	private volatile @Nullable ConcurrentHashMap<Object, HeldLock> shared;

	/**
	 * The owner values callers chose for the claims of this JVM, other than plain
	 * exclusive ones, that hold or wait for the key; {@code null} until one claims.
	 */
	private volatile @Nullable Set<String> kindOwners;

	/**
	 * How many calls of this JVM that hold or want the key use each owner value they
	 * chose; {@code null} until one does. Guarded by the table's per-key compute.
	 */
	@Nullable Map<String, Integer> ownersInUse;

	LocalKey(String key) {
		this.key = key;
	}

	@Nullable HeldLock held() {
		return this.held;
	}

	void hold(HeldLock lock) {
		this.held = lock;
	}

	void unhold(HeldLock lock) {
		HELD.compareAndSet(this, lock, null);
	}

	int waitingForRelease() {
		return this.waitingForRelease;
	}

	void addWaitingForRelease(int delta) {
		WAITING_FOR_RELEASE.getAndAdd(this, delta);
	}

	int offTheGate() {
		return this.offTheGate;
	}

	void addOffTheGate(int delta) {
		OFF_THE_GATE.getAndAdd(this, delta);
	}

	/** The readers and permit holders. */
	Collection<HeldLock> shared() {
		ConcurrentHashMap<Object, HeldLock> shared = this.shared;
		return (shared != null) ? shared.values() : List.of();
	}

	@Nullable HeldLock shared(Object reentrancyOwner) {
		ConcurrentHashMap<Object, HeldLock> shared = this.shared;
		return (shared != null) ? shared.get(reentrancyOwner) : null;
	}

	void holdShared(Object reentrancyOwner, HeldLock lock) {
		ConcurrentHashMap<Object, HeldLock> shared = this.shared;
		if (shared == null) {
			ConcurrentHashMap<Object, HeldLock> made = new ConcurrentHashMap<>();
			shared = SHARED.compareAndSet(this, null, made) ? made : this.shared;
		}
		shared.put(reentrancyOwner, lock);
	}

	void unholdShared(HeldLock lock) {
		ConcurrentHashMap<Object, HeldLock> shared = this.shared;
		if (shared != null) {
			shared.values().remove(lock);
		}
	}

	/** Whether {@code owner} was not claimed yet: it is claimed now. */
	boolean claimOwner(String owner) {
		Set<String> owners = this.kindOwners;
		if (owners == null) {
			Set<String> made = ConcurrentHashMap.newKeySet();
			owners = KIND_OWNERS.compareAndSet(this, null, made) ? made : this.kindOwners;
		}
		return owners.add(owner);
	}

	void unclaimOwner(String owner) {
		Set<String> owners = this.kindOwners;
		if (owners != null) {
			owners.remove(owner);
		}
	}

	void waitInStoreQueue(Acquisition waiter) {
		ConcurrentLinkedDeque<Acquisition> queue = this.storeQueue;
		if (queue == null) {
			ConcurrentLinkedDeque<Acquisition> made = new ConcurrentLinkedDeque<>();
			queue = STORE_QUEUE.compareAndSet(this, null, made) ? made : this.storeQueue;
		}
		queue.add(waiter);
	}

	void leaveStoreQueue(Acquisition waiter) {
		ConcurrentLinkedDeque<Acquisition> queue = this.storeQueue;
		if (queue != null) {
			queue.remove(waiter);
		}
	}

	@Nullable Acquisition firstInStoreQueue() {
		ConcurrentLinkedDeque<Acquisition> queue = this.storeQueue;
		return (queue != null) ? queue.peekFirst() : null;
	}

}
