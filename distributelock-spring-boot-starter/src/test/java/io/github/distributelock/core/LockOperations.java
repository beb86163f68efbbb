package io.github.distributelock.core;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionException;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;

/**
 * The operations {@link LocalLocksLincheckTests} runs on one lock service from a few
 * threads, and the invariant it checks whenever none runs (the scenarios add their own:
 * {@link LockScenario}, {@link LockScenarioWithShutdown}). Each thread acquires with a
 * wait time of zero through the blocking and the non-blocking API, re-enters what it
 * holds through the blocking one, releases its own handles, the last taken first, through
 * {@code close()} or {@code releaseAsync()}, and closes a closed handle again.
 * <p>
 * The store is in memory and answers on the calling thread, and the scheduler starts no
 * thread, so the model checker controls every thread the engine runs on.
 */
@Param(name = "key", gen = IntGen.class, conf = "0:1")
public abstract class LockOperations {

	static final int KEYS = 2;

	static final int THREADS = 3;

	/** Longer than any run: the watchdog never renews, and no lease runs out. */
	private static final Duration WATCHDOG_LEASE = Duration.ofHours(1);

	private final InstantLockBackend store = new InstantLockBackend();

	final DefaultDistributeLock lock = new DefaultDistributeLock(this.store, WATCHDOG_LEASE, false,
			LockEventListener.NONE, new InlineScheduler());

	/** Each thread's open handles per key; only that thread uses its own. */
	final Handles<LockHandle> handles = new Handles<>(THREADS + 2, KEYS);

	protected LockOperations() throws InterruptedException, ReflectiveOperationException {
		// The classes on the operations' paths are loaded, and instrumented, by one
		// thread before the scenario's threads start.
		this.lock.tryAcquire(LockRequest.of("warm-up")).orElseThrow().close();
		this.lock.tryAcquireAsync(LockRequest.of("warm-up")).join().orElseThrow().releaseAsync().join();
		this.lock.heldLocks();
		storeAgreesWithTheTable();
	}

	@Operation
	public Outcome acquire(@Param(gen = ThreadIdGen.class) int thread, @Param(name = "key") int key)
			throws InterruptedException {
		return taken(thread, key, this.lock.tryAcquire(LockRequest.of(key(key))));
	}

	@Operation
	public Outcome acquireAsync(@Param(gen = ThreadIdGen.class) int thread, @Param(name = "key") int key) {
		try {
			// Completes at once: the store answers on the calling thread.
			return taken(thread, key, this.lock.tryAcquireAsync(LockRequest.of(key(key))).join());
		}
		catch (CompletionException ex) {
			throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

	private Outcome taken(int thread, int key, Optional<LockHandle> handle) {
		handle.ifPresent((taken) -> this.handles.push(thread, key, taken));
		return handle.isPresent() ? Outcome.ACQUIRED : Outcome.NOT_ACQUIRED;
	}

	@Operation
	public boolean release(@Param(gen = ThreadIdGen.class) int thread, @Param(name = "key") int key) {
		LockHandle handle = this.handles.pop(thread, key);
		if (handle != null) {
			handle.close();
		}
		return handle != null;
	}

	@Operation
	public boolean releaseAsync(@Param(gen = ThreadIdGen.class) int thread, @Param(name = "key") int key) {
		LockHandle handle = this.handles.pop(thread, key);
		if (handle != null) {
			handle.releaseAsync().join();
		}
		return handle != null;
	}

	/** A handle is closed once: closing it again gives back nobody's hold. */
	@Operation
	public boolean closeAgain(@Param(gen = ThreadIdGen.class) int thread, @Param(name = "key") int key) {
		LockHandle handle = this.handles.lastClosed(thread, key);
		if (handle != null) {
			handle.close();
		}
		return handle != null;
	}

	/**
	 * With no call running, the store holds exactly the keys this JVM's table says it
	 * holds, for the same owners, and the table keeps no entry for a key nobody uses.
	 */
	@Validate
	public void invariants() throws ReflectiveOperationException {
		storeAgreesWithTheTable();
		scenarioInvariants();
	}

	/** What a scenario checks besides, whenever no call runs. */
	protected void scenarioInvariants() {
	}

	private void storeAgreesWithTheTable() throws ReflectiveOperationException {
		// Plain loops: the model checker instruments what runs here as it first meets it.
		LocalLocks table = localLocks();
		int held = 0;
		for (int key = 0; key < KEYS; key++) {
			String name = key(key);
			HeldLock lock = null;
			for (HeldLock candidate : table.held()) {
				if (candidate.key.equals(name)) {
					lock = candidate;
				}
			}
			String storeOwner = this.store.owner(name);
			String tableOwner = (lock != null) ? lock.owner() : null;
			if ((storeOwner == null) ? tableOwner != null : !storeOwner.equals(tableOwner)) {
				throw new IllegalStateException("The store holds " + name + " for " + storeOwner
						+ " while this JVM holds it for " + tableOwner);
			}
			held += (lock != null) ? 1 : 0;
		}
		if (table.size() != held) {
			throw new IllegalStateException(
					"The key table has " + table.size() + " entries while " + held + " locks are held");
		}
	}

	private LocalLocks localLocks() throws ReflectiveOperationException {
		// The table is private to the facade; its size shows an entry left behind.
		Field locks = DefaultDistributeLock.class.getDeclaredField("locks");
		locks.setAccessible(true);
		return (LocalLocks) locks.get(this.lock);
	}

	static String key(int key) {
		return "key-" + key;
	}

	/** What an acquisition gave. */
	public enum Outcome {

		ACQUIRED, NOT_ACQUIRED

	}

}
