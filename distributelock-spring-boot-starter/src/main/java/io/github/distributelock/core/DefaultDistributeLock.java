package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

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

	/** How long {@link #close()} lets the acquisitions in flight end. */
	private static final Duration SHUTDOWN_DRAIN_TIMEOUT = Duration.ofSeconds(5);

	private final EngineContext context;

	private final boolean ownsScheduler;

	private final LockAcquirer acquirer;

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
		backend.addLossListener(this.context);
		this.acquirer = new LockAcquirer(this.context);
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
		HeldLock lock = this.acquirer.acquire(lockKey, lockName, null, waitTime, leaseTime);
		return Optional.ofNullable(lock).map(HeldLock::newHandle);
	}

	@Override
	public boolean tryLock(String lockKey, String lockValue, int waitTimeMs, int timeoutMs)
			throws InterruptedException {
		Arguments.requireKey(lockKey);
		if (lockValue == null || lockValue.isEmpty()) {
			throw new IllegalArgumentException("lockValue must not be null or empty: it is the owner of the lock");
		}
		return this.acquirer.acquire(lockKey, null, lockValue, Duration.ofMillis(waitTimeMs),
				Arguments.leaseFromMillis(timeoutMs)) != null;
	}

	@Override
	public boolean releaseLock(String lockKey, String lockValue) {
		Arguments.requireKey(lockKey);
		if (this.context.shutdown.isClosed()) {
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
		return this.context.releaseUninterruptibly(lockKey, lockValue);
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
	 * {@link DistributeLockException}, attempts in flight are given a few seconds to end,
	 * the locks still held are released, the watchdog stops, the backend's loss reports
	 * are no longer heard, and later acquisitions fail with a
	 * {@link DistributeLockException}. Closing twice does nothing the second time.
	 */
	@Override
	public void close() {
		if (!this.context.shutdown.close()) {
			return;
		}
		// Woken waiters and attempts in flight end while the store can still be reached;
		// one that takes a lock now gives it back at once.
		int stillRunning = this.context.shutdown.awaitDrained(SHUTDOWN_DRAIN_TIMEOUT);
		if (stillRunning > 0) {
			this.context.log()
				.warn(stillRunning + " lock acquisitions in " + this.context.backend.name() + " were still running "
						+ SHUTDOWN_DRAIN_TIMEOUT.toSeconds() + " s after the shutdown began");
		}
		for (HeldLock lock : this.context.table.heldLocks()) {
			try {
				lock.releaseAll();
			}
			catch (DistributeLockException ex) {
				this.context.log().warn("Could not release lock '" + lock.key + "' at shutdown", ex);
			}
		}
		this.context.releaseRetries.drain();
		this.context.backend.removeLossListener(this.context);
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
