package io.github.distributelock.core;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Lost locks: counted, logged and, when configured, thrown at release; and what a
 * {@link SessionLockBackend} tells of its session (at risk, safe again, lost).
 */
final class Losses implements LockLossListener {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private final StoreCalls store;

	private final LocalLocks locks;

	private final boolean throwOnLost;

	private final AtomicLong lostLocks = new AtomicLong();

	private final LostListenerThread listenerThread = new LostListenerThread();

	/** How many times the backend reported its locks lost. */
	private final AtomicLong lossReports = new AtomicLong();

	/**
	 * Whether the backend said its locks are at risk and has not said since that they are
	 * safe or lost.
	 */
	private volatile boolean atRisk;

	Losses(StoreCalls store, LocalLocks locks, boolean throwOnLost) {
		this.store = store;
		this.locks = locks;
		this.throwOnLost = throwOnLost;
	}

	void lost(HeldLock lock, String reason) {
		this.lostLocks.incrementAndGet();
		logger.warn("Lock '" + lock.key + "' in " + this.store.name() + " was lost while held (" + reason
				+ "); another holder may run the same work concurrently");
		lock.tracker.lost(reason);
	}

	/**
	 * Runs {@code notification}, which tells the lost-lock listeners of a handle, on the
	 * lock service's {@link LostListenerThread}.
	 */
	void tell(Runnable notification) {
		this.listenerThread.execute(notification);
	}

	/** Ends the listeners' thread once the notifications given so far have run. */
	void close() {
		this.listenerThread.shutDown();
	}

	void lostAtRelease(String key) {
		if (this.throwOnLost) {
			throw new LockLostException(key, this.store.name());
		}
	}

	@Override
	public void locksAtRisk(String reason) {
		this.atRisk = true;
		List<String> keys = this.locks.held().stream().map((lock) -> lock.key).toList();
		if (!keys.isEmpty()) {
			logger.warn("Locks " + keys + " in " + this.store.name() + " are at risk (" + reason
					+ "); treat them as suspect until the connection is back");
		}
	}

	@Override
	public void locksSafe(String reason) {
		if (this.atRisk) {
			this.atRisk = false;
			logger.info("Locks in " + this.store.name() + " are no longer at risk (" + reason + ")");
		}
	}

	boolean atRisk() {
		return this.atRisk;
	}

	@Override
	public void locksLost(String reason) {
		this.atRisk = false;
		// Counted before the held locks are read, so that a lock being acquired now
		// either is among them or sees the new count in markLostIfReportedSince.
		this.lossReports.incrementAndGet();
		for (HeldLock lock : this.locks.held()) {
			lock.markLost(reason);
		}
	}

	/** The number of loss reports so far, read before each attempt at the store. */
	long reports() {
		return this.lossReports.get();
	}

	/**
	 * Marks a lock lost if the backend reported a loss since its attempt at the store
	 * began: the report may have come before the lock was in the table.
	 */
	void markLostIfReportedSince(HeldLock lock, long reportsAtAttempt) {
		if (this.lossReports.get() != reportsAtAttempt) {
			lock.markLost("the store reported its locks lost while this one was being acquired");
		}
	}

	long count() {
		return this.lostLocks.get();
	}

}
