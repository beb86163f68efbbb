package io.github.distributelock.core;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.DistributeLockException;
import org.jspecify.annotations.Nullable;

/**
 * The path of one call for a lock: reentrancy, this JVM's gate for the key, the wait at
 * the store, and the start of the hold, with the listeners, the log and the shutdown told
 * at each end.
 */
final class LockAcquirer {

	private final EngineContext context;

	private final String ownerPrefix = UUID.randomUUID() + ":";

	private final AtomicLong ownerSequence = new AtomicLong();

	LockAcquirer(EngineContext context) {
		this.context = context;
	}

	/**
	 * Takes the lock for the calling thread (reentrant) or for an explicit owner value.
	 * @return the held lock, or {@code null} if the wait time passed
	 * @throws DistributeLockException if the store fails or the lock service shuts down
	 */
	@Nullable HeldLock acquire(String key, @Nullable String name, @Nullable String ownerValue, Duration waitTime,
			@Nullable Duration leaseTime) throws InterruptedException {
		Arguments.requireWait(waitTime);
		Interrupts.check(key, this.context.backend.name());
		this.context.shutdown.enter(key);
		try {
			return acquireWhileOpen(key, name, ownerValue, waitTime, leaseTime);
		}
		finally {
			this.context.shutdown.exit();
		}
	}

	private @Nullable HeldLock acquireWhileOpen(String key, @Nullable String name, @Nullable String ownerValue,
			Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
		long start = System.nanoTime();
		long deadline = start + DefaultDistributeLock.saturatedNanos(waitTime);
		Thread thread = Thread.currentThread();
		KeyState state = this.context.table.enter(key);
		HeldLock current = state.held;
		if (ownerValue == null && current != null && current.reenter(thread)) {
			this.context.table.leave(state);
			return current;
		}
		LockTracker tracker = this.context.track(key, name);
		HeldLock acquired;
		try {
			acquired = acquireFromStore(state, ownerValue, (ownerValue != null) ? null : thread, waitTime, deadline,
					leaseTime, tracker);
		}
		catch (InterruptedException | RuntimeException | Error ex) {
			this.context.table.leave(state);
			tracker.failed(ex);
			throw ex;
		}
		Duration waited = Duration.ofNanos(System.nanoTime() - start);
		if (acquired == null) {
			this.context.table.leave(state);
			tracker.notAcquired();
			this.context.events.notAcquired(key, waited);
			logWaited("Did not acquire lock '", key, " within ", waited);
			return null;
		}
		tracker.acquired(acquired.fencingToken);
		state.held = acquired;
		startHolding(acquired);
		this.context.events.acquired(key, waited);
		logWaited("Acquired lock '", key, " after waiting ", waited);
		// A loss reported by the backend while the attempt ran may concern this lock.
		this.context.markLostIfReportedSince(acquired);
		return acquired;
	}

	private @Nullable HeldLock acquireFromStore(KeyState state, @Nullable String ownerValue,
			@Nullable Thread reentrantThread, Duration waitTime, long deadline, @Nullable Duration leaseTime,
			LockTracker tracker) throws InterruptedException {
		if (!enterGate(state, waitTime, deadline)) {
			return null;
		}
		HeldLock acquired = null;
		try {
			String owner = (ownerValue != null) ? ownerValue : nextOwner();
			acquired = new StoreAcquisition(this.context, state, owner, leaseTime, deadline, tracker)
				.run(reentrantThread);
			return acquired;
		}
		finally {
			if (acquired == null) {
				state.gate.release();
			}
		}
	}

	/**
	 * Takes this JVM's gate for the key: threads of this JVM queue here, so only one of
	 * them competes at the store.
	 */
	private boolean enterGate(KeyState state, Duration waitTime, long deadline) throws InterruptedException {
		if (state.gate.tryAcquire()) {
			return true;
		}
		if (waitTime.isZero()) {
			return false;
		}
		return this.context.shutdown.await(state.key,
				() -> state.gate.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
	}

	/**
	 * Starts the watchdog of a lock just taken, unless the lock service closed meanwhile:
	 * then the lock is given back, so that a clean shutdown leaves nothing in the store.
	 */
	private void startHolding(HeldLock acquired) {
		RejectedExecutionException rejected = null;
		if (!this.context.shutdown.isClosed()) {
			try {
				acquired.start();
				return;
			}
			catch (RejectedExecutionException ex) {
				// The watchdog's scheduler stopped: close() is running.
				rejected = ex;
			}
		}
		try {
			acquired.releaseAll();
		}
		catch (DistributeLockException ex) {
			this.context.log().warn("Could not release lock '" + acquired.key + "' taken during shutdown", ex);
		}
		throw this.context.shutdown.shuttingDown(acquired.key, rejected);
	}

	private void logWaited(String prefix, String key, String middle, Duration waited) {
		if (this.context.log().isDebugEnabled()) {
			this.context.log()
				.debug(prefix + key + "' in " + this.context.backend.name() + middle + waited.toMillis() + " ms");
		}
	}

	private String nextOwner() {
		return this.ownerPrefix + this.ownerSequence.incrementAndGet();
	}

}
