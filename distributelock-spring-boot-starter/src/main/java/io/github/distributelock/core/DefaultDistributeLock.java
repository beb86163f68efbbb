package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.CallBackExecutor;
import io.github.distributelock.DistributeLock;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import org.jspecify.annotations.Nullable;

/**
 * The {@link DistributeLock} of every backend: waiting with one deadline, reentrancy,
 * lease renewal by a watchdog, lost-lock detection and reporting, over the primitives of
 * a {@link LockBackend}.
 *
 * @author distributelock
 * @since 1.0.0
 */
public class DefaultDistributeLock implements DistributeLock, AutoCloseable {

	/** The lease renewed by the watchdog when none is given. */
	public static final Duration DEFAULT_WATCHDOG_LEASE = Duration.ofSeconds(30);

	private final EngineContext context;

	private final boolean ownsScheduler;

	private final String ownerPrefix = UUID.randomUUID() + ":";

	private final AtomicLong ownerSequence = new AtomicLong();

	/**
	 * Creates a lock with a 30 second watchdog lease that logs lost locks.
	 * @param backend the store
	 */
	public DefaultDistributeLock(LockBackend backend) {
		this(backend, DEFAULT_WATCHDOG_LEASE, false, LockEventListener.NONE, null);
	}

	/**
	 * Creates a lock.
	 * @param backend the store
	 * @param watchdogLease the lease of locks taken without a fixed lease, renewed every
	 * third of it
	 * @param throwOnLost whether a release throws
	 * {@link io.github.distributelock.LockLostException} when the lock had been lost
	 * @param events told of acquisitions, releases and losses
	 * @param scheduler runs the watchdog; {@code null} creates one that {@link #close()}
	 * stops
	 */
	public DefaultDistributeLock(LockBackend backend, Duration watchdogLease, boolean throwOnLost,
			LockEventListener events, @Nullable ScheduledExecutorService scheduler) {
		Arguments.requirePositive(watchdogLease, "watchdogLease");
		this.ownsScheduler = (scheduler == null);
		this.context = new EngineContext(backend, (scheduler != null) ? scheduler : createScheduler(), watchdogLease,
				throwOnLost, events);
	}

	private static ScheduledExecutorService createScheduler() {
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2, (task) -> {
			Thread thread = new Thread(task, "distributelock-watchdog");
			thread.setDaemon(true);
			return thread;
		});
		scheduler.setRemoveOnCancelPolicy(true);
		scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		return scheduler;
	}

	@Override
	public Optional<LockHandle> tryAcquire(String lockKey, Duration waitTime, @Nullable Duration leaseTime)
			throws InterruptedException {
		return tryAcquire(lockKey, null, waitTime, leaseTime);
	}

	@Override
	public Optional<LockHandle> tryAcquire(String lockKey, @Nullable String lockName, Duration waitTime,
			@Nullable Duration leaseTime) throws InterruptedException {
		Arguments.requireKey(lockKey);
		Arguments.requireWait(waitTime);
		if (leaseTime != null) {
			Arguments.requirePositive(leaseTime, "leaseTime");
		}
		HeldLock lock = acquire(lockKey, lockName, null, waitTime, leaseTime);
		return Optional.ofNullable(lock).map(HeldLock::newHandle);
	}

	@Override
	public boolean tryLock(String lockKey, String lockValue, int waitTimeMs, int timeoutMs)
			throws InterruptedException {
		Arguments.requireKey(lockKey);
		if (lockValue == null || lockValue.isEmpty()) {
			throw new IllegalArgumentException("lockValue must not be null or empty: it is the owner of the lock");
		}
		return acquire(lockKey, null, lockValue, Duration.ofMillis(waitTimeMs),
				Arguments.leaseFromMillis(timeoutMs)) != null;
	}

	@Override
	public boolean releaseLock(String lockKey, String lockValue) {
		Arguments.requireKey(lockKey);
		if (this.context.waiters.isClosed()) {
			// close() released what this instance held; the store may be gone already.
			this.context.log().debug("Not releasing lock '" + lockKey + "': the lock service is shut down");
			return false;
		}
		KeyState state = this.context.table.peek(lockKey);
		HeldLock held = (state != null) ? state.held : null;
		if (held != null && held.owner.equals(lockValue)) {
			return held.releaseAll();
		}
		// The value may have locked from another instance: the store checks the owner.
		return this.context.call(lockKey, "release", () -> this.context.backend.release(lockKey, lockValue));
	}

	@Override
	public <T extends @Nullable Object> T tryLockAndCallBack(String lockKey, int waitTimeMs, int timeoutMs,
			CallBackExecutor<T> onLocked, CallBackExecutor<T> onFailed) throws Exception {
		Optional<LockHandle> handle = tryAcquire(lockKey, Duration.ofMillis(waitTimeMs),
				Arguments.leaseFromMillis(timeoutMs));
		if (handle.isEmpty()) {
			return onFailed.execute();
		}
		try (LockHandle held = handle.get()) {
			return onLocked.execute();
		}
	}

	/**
	 * Takes the lock for the calling thread (reentrant) or for an explicit owner value.
	 * @return the held lock, or {@code null} if the wait time passed
	 */
	private @Nullable HeldLock acquire(String key, @Nullable String name, @Nullable String ownerValue,
			Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
		Arguments.requireWait(waitTime);
		this.context.waiters.requireOpen(key);
		long start = System.nanoTime();
		long deadline = start + saturatedNanos(waitTime);
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
			logWaited("Did not acquire lock '", key, "' within ", waited);
			return null;
		}
		tracker.acquired(acquired.fencingToken);
		state.held = acquired;
		startHolding(acquired);
		this.context.events.acquired(key, waited);
		logWaited("Acquired lock '", key, "' after waiting ", waited);
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
	 * Takes this JVM's gate for the key: threads of this JVM queue here, fairly, so only
	 * one of them competes at the store.
	 */
	private boolean enterGate(KeyState state, Duration waitTime, long deadline) throws InterruptedException {
		if (waitTime.isZero()) {
			return state.gate.tryAcquire();
		}
		// A zero timeout honours the fair order without registering as a waiter.
		if (state.gate.tryAcquire(0, TimeUnit.NANOSECONDS)) {
			return true;
		}
		return this.context.waiters.await(state.key,
				() -> state.gate.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
	}

	/**
	 * Starts the watchdog of a lock just taken, unless the lock service closed meanwhile:
	 * then the lock is given back, so that a clean shutdown leaves nothing in the store.
	 */
	private void startHolding(HeldLock acquired) {
		if (!this.context.waiters.isClosed()) {
			try {
				acquired.start();
				return;
			}
			catch (RejectedExecutionException ex) {
				// The watchdog's scheduler stopped: close() is running.
			}
		}
		try {
			acquired.releaseAll();
		}
		catch (DistributeLockException ex) {
			this.context.log().warn("Could not release lock '" + acquired.key + "' taken during shutdown", ex);
		}
		throw this.context.waiters.shuttingDown(acquired.key, null);
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

	/**
	 * The locks this instance holds now.
	 * @return a snapshot of the held locks
	 */
	public List<HeldLockInfo> heldLocks() {
		return this.context.table.heldLocks().stream().map(HeldLockInfo::of).toList();
	}

	/**
	 * How many locks were lost while held since this instance was created.
	 * @return the number of lost locks
	 */
	public long lostLockCount() {
		return this.context.lostLockCount();
	}

	/**
	 * The backend this lock runs on.
	 * @return the backend
	 */
	public LockBackend backend() {
		return this.context.backend;
	}

	/**
	 * Shuts the lock service down: threads waiting for a lock are woken with a
	 * {@link DistributeLockException}, the locks still held are released, the watchdog
	 * stops, and later acquisitions fail with a {@link DistributeLockException}. Closing
	 * twice does nothing the second time.
	 */
	@Override
	public void close() {
		if (!this.context.waiters.close()) {
			return;
		}
		for (HeldLock lock : this.context.table.heldLocks()) {
			try {
				lock.releaseAll();
			}
			catch (DistributeLockException ex) {
				this.context.log().warn("Could not release lock '" + lock.key + "' at shutdown", ex);
			}
		}
		if (this.ownsScheduler) {
			this.context.scheduler.shutdownNow();
		}
	}

	static long saturatedNanos(Duration duration) {
		try {
			return duration.toNanos();
		}
		catch (ArithmeticException ex) {
			return Long.MAX_VALUE / 2;
		}
	}

}
