package io.github.distributelock.core;

import java.time.Duration;
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
 * the reporting of failures and losses.
 */
final class EngineContext {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	final LockBackend backend;

	final ScheduledExecutorService scheduler;

	final KeyStateTable table = new KeyStateTable();

	final Duration watchdogLease;

	final boolean throwOnLost;

	final LockEventListener events;

	final ShutdownGuard shutdown;

	private final AtomicLong lostLocks = new AtomicLong();

	EngineContext(LockBackend backend, ScheduledExecutorService scheduler, Duration watchdogLease, boolean throwOnLost,
			LockEventListener events) {
		this.backend = backend;
		this.scheduler = scheduler;
		this.watchdogLease = watchdogLease;
		this.throwOnLost = throwOnLost;
		this.events = events;
		this.shutdown = new ShutdownGuard(backend.name());
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

	long lostLockCount() {
		return this.lostLocks.get();
	}

	Log log() {
		return logger;
	}

}
