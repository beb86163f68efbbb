package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
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
		requirePositive(watchdogLease, "watchdogLease");
		this.ownsScheduler = (scheduler == null);
		this.context = new EngineContext(backend, (scheduler != null) ? scheduler : createScheduler(), watchdogLease,
				throwOnLost, events);
		backend.addLossListener(this.context);
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
		requireKey(lockKey);
		requireWait(waitTime);
		if (leaseTime != null) {
			requirePositive(leaseTime, "leaseTime");
		}
		HeldLock lock = acquire(lockKey, null, waitTime, leaseTime);
		return Optional.ofNullable(lock).map(HeldLock::newHandle);
	}

	@Override
	public boolean tryLock(String lockKey, String lockValue, int waitTimeMs, int timeoutMs)
			throws InterruptedException {
		requireKey(lockKey);
		if (lockValue == null || lockValue.isEmpty()) {
			throw new IllegalArgumentException("lockValue must not be null or empty: it is the owner of the lock");
		}
		return acquire(lockKey, lockValue, Duration.ofMillis(waitTimeMs), leaseFromMillis(timeoutMs)) != null;
	}

	@Override
	public boolean releaseLock(String lockKey, String lockValue) {
		requireKey(lockKey);
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
		Optional<LockHandle> handle = tryAcquire(lockKey, Duration.ofMillis(waitTimeMs), leaseFromMillis(timeoutMs));
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
	private @Nullable HeldLock acquire(String key, @Nullable String ownerValue, Duration waitTime,
			@Nullable Duration leaseTime) throws InterruptedException {
		requireWait(waitTime);
		long start = System.nanoTime();
		long deadline = start + saturatedNanos(waitTime);
		Thread thread = Thread.currentThread();
		KeyState state = this.context.table.enter(key);
		HeldLock current = state.held;
		if (ownerValue == null && current != null && current.reenter(thread)) {
			this.context.table.leave(state);
			return current;
		}
		boolean gateTaken = false;
		HeldLock acquired = null;
		try {
			gateTaken = waitTime.isZero() ? state.gate.tryAcquire()
					: state.gate.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
			if (gateTaken) {
				String owner = (ownerValue != null) ? ownerValue : nextOwner();
				acquired = new StoreAcquisition(this.context, state, owner, leaseTime, deadline)
					.run((ownerValue != null) ? null : thread);
			}
			return acquired;
		}
		finally {
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			if (acquired != null) {
				state.held = acquired;
				acquired.start();
				this.context.events.acquired(key, waited);
				logAcquired(key, waited);
				this.context.markLostIfReportedSince(acquired);
			}
			else {
				if (gateTaken) {
					state.gate.release();
				}
				this.context.table.leave(state);
				this.context.events.notAcquired(key, waited);
			}
		}
	}

	private void logAcquired(String key, Duration waited) {
		if (this.context.log().isDebugEnabled()) {
			this.context.log()
				.debug("Acquired lock '" + key + "' in " + this.context.backend.name() + " after waiting "
						+ waited.toMillis() + " ms");
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
	 * Releases the locks still held, stops the watchdog and stops listening to the
	 * backend's loss reports.
	 */
	@Override
	public void close() {
		for (HeldLock lock : this.context.table.heldLocks()) {
			try {
				lock.releaseAll();
			}
			catch (DistributeLockException ex) {
				this.context.log().warn("Could not release lock '" + lock.key + "' at shutdown", ex);
			}
		}
		this.context.backend.removeLossListener(this.context);
		if (this.ownsScheduler) {
			this.context.scheduler.shutdownNow();
		}
	}

	private static @Nullable Duration leaseFromMillis(int timeoutMs) {
		if (timeoutMs == -1) {
			return null;
		}
		if (timeoutMs <= 0) {
			throw new IllegalArgumentException("timeoutMs must be positive (a fixed lease in milliseconds) or -1 "
					+ "(a lease renewed until release), was " + timeoutMs);
		}
		return Duration.ofMillis(timeoutMs);
	}

	private static void requireKey(String lockKey) {
		if (lockKey == null || lockKey.isBlank()) {
			throw new IllegalArgumentException("lockKey must not be null or blank");
		}
	}

	private static void requireWait(Duration waitTime) {
		if (waitTime == null || waitTime.isNegative()) {
			throw new IllegalArgumentException(
					"waitTime must not be negative, was " + waitTime + "; use 0 for a single attempt");
		}
	}

	private static void requirePositive(Duration lease, String name) {
		if (lease.isNegative() || lease.isZero() || lease.toMillis() < 1) {
			throw new IllegalArgumentException(
					name + " must be at least 1 ms, was " + lease + "; pass null for a lease renewed by the watchdog");
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
