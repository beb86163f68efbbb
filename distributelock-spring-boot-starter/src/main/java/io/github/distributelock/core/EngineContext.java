package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What the engine's parts share: the backend, the watchdog's scheduler, the settings and
 * the reporting of failures and losses, including the losses the backend reports.
 */
final class EngineContext implements LockLossListener {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	/**
	 * Releases sent before one cut short by interrupts again and again counts as failed.
	 */
	private static final int RELEASE_ATTEMPTS_WHEN_INTERRUPTED = 3;

	final LockBackend backend;

	final ScheduledExecutorService scheduler;

	final KeyStateTable table = new KeyStateTable();

	final Duration watchdogLease;

	final boolean throwOnLost;

	final LockEventListener events;

	final ShutdownGuard shutdown;

	final Watchdog watchdog;

	final ReleaseRetries releaseRetries;

	private final AtomicLong lostLocks = new AtomicLong();

	/** How many times the backend reported its locks lost. */
	private final AtomicLong lossReports = new AtomicLong();

	/**
	 * Whether the backend said its locks are at risk and has not said since that they are
	 * safe or lost.
	 */
	private volatile boolean atRisk;

	EngineContext(LockBackend backend, ScheduledExecutorService scheduler, Duration watchdogLease, boolean throwOnLost,
			LockEventListener events) {
		this.backend = backend;
		this.scheduler = scheduler;
		this.watchdogLease = watchdogLease;
		this.throwOnLost = throwOnLost;
		this.events = events;
		this.shutdown = new ShutdownGuard(backend.name());
		this.watchdog = new Watchdog(scheduler, watchdogLease);
		this.releaseRetries = new ReleaseRetries(backend, scheduler);
	}

	/**
	 * The tracker of one acquisition; the name is only derived from the key when a
	 * listener will use it.
	 */
	LockTracker track(String key, @Nullable String name) {
		if (this.events == LockEventListener.NONE) {
			return LockTracker.NONE;
		}
		return this.events.acquiring(key, (name != null) ? name : LockNames.fromKey(key), this.backend.name());
	}

	/**
	 * Runs one store operation, turning any failure into a
	 * {@link DistributeLockException} that names the key and the backend.
	 */
	<T> T call(String key, String operation, Supplier<T> storeCall) {
		try {
			return storeCall.get();
		}
		catch (RuntimeException ex) {
			throw failure(key, operation, ex);
		}
	}

	/**
	 * Releases {@code key} in the store whatever the calling thread's interrupt flag, and
	 * when the store fails, retries in the background until the lease ends and throws.
	 * @param leaseEndNanos when the lease ends on {@link System#nanoTime()}, or
	 * {@code null} for a store without leases
	 * @return whether this owner held the lock
	 * @throws DistributeLockException if the store failed; the release is retried
	 */
	boolean release(String key, String owner, @Nullable Long leaseEndNanos) {
		try {
			return releaseUninterruptibly(key, owner);
		}
		catch (DistributeLockException ex) {
			this.releaseRetries.retry(key, owner, leaseEndNanos, ex);
			throw ex;
		}
	}

	/**
	 * Releases {@code key} in the store with the interrupt flag cleared, and sends the
	 * release again when an interrupt that arrived during the call cut it short; the flag
	 * is set again at the end if it was set at any point.
	 * @return whether this owner held the lock
	 * @throws DistributeLockException if the store failed
	 */
	boolean releaseUninterruptibly(String key, String owner) {
		boolean interrupted = Thread.interrupted();
		try {
			for (int attempt = 1;; attempt++) {
				try {
					// A release cut short by an interrupt may have been applied all the
					// same: the next one then finds nothing to release.
					return this.backend.release(key, owner) || attempt > 1;
				}
				catch (RuntimeException ex) {
					if (attempt < RELEASE_ATTEMPTS_WHEN_INTERRUPTED && Interrupts.causedInterrupt(ex)) {
						interrupted = true;
						Thread.interrupted();
						continue;
					}
					throw failure(key, "release", ex);
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	DistributeLockException failure(String key, String operation, RuntimeException ex) {
		if (ex instanceof DistributeLockException failure) {
			return failure;
		}
		return new DistributeLockException(
				"Could not " + operation + " lock '" + key + "' in " + this.backend.name() + ": " + ex.getMessage(),
				key, this.backend.name(), ex);
	}

	void lost(HeldLock lock, String reason) {
		this.lostLocks.incrementAndGet();
		logger.warn("Lock '" + lock.key + "' in " + this.backend.name() + " was lost while held (" + reason
				+ "); another holder may run the same work concurrently");
		lock.tracker.lost(reason);
		this.events.lost(lock.key);
	}

	void lostAtRelease(String key) {
		if (this.throwOnLost) {
			throw new LockLostException(key, this.backend.name());
		}
	}

	@Override
	public void locksAtRisk(String reason) {
		this.atRisk = true;
		List<String> keys = this.table.heldLocks().stream().map((lock) -> lock.key).toList();
		if (!keys.isEmpty()) {
			logger.warn("Locks " + keys + " in " + this.backend.name() + " are at risk (" + reason
					+ "); treat them as suspect until the connection is back");
		}
	}

	@Override
	public void locksSafe(String reason) {
		if (this.atRisk) {
			this.atRisk = false;
			logger.info("Locks in " + this.backend.name() + " are no longer at risk (" + reason + ")");
		}
	}

	boolean locksAtRisk() {
		return this.atRisk;
	}

	@Override
	public void locksLost(String reason) {
		this.atRisk = false;
		// Counted before the held locks are read, so that a lock being acquired now
		// either is among them or sees the new count in markLostIfReportedSince.
		this.lossReports.incrementAndGet();
		this.releaseRetries.forgetAll();
		for (HeldLock lock : this.table.heldLocks()) {
			lock.markLost(reason);
		}
	}

	/** The number of loss reports so far, read before each attempt at the store. */
	long lossReports() {
		return this.lossReports.get();
	}

	/**
	 * Marks a lock lost if the backend reported a loss since its attempt at the store
	 * began: the report may have come before the lock was in the table.
	 */
	void markLostIfReportedSince(HeldLock lock) {
		if (this.lossReports.get() != lock.lossReportsAtAttempt) {
			lock.markLost("the store reported its locks lost while this one was being acquired");
		}
	}

	long lostLockCount() {
		return this.lostLocks.get();
	}

	Log log() {
		return logger;
	}

}
