package io.github.distributelock.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Releases that failed for a store error (a failover, a reset connection, a timeout),
 * retried in the background until the store answers or the lease would have ended anyway,
 * so that a lock whose release hit a dying master does not stay in the store for its
 * whole lease while every other instance waits for it.
 * <p>
 * The caller is not held up: it hears of the failure once, and the retries run on the
 * engine's scheduler with a pause that doubles from 50 ms to 2 s. A store without leases
 * (ZooKeeper) is retried until the release succeeds, its session ends, or the lock
 * service closes.
 */
final class ReleaseRetries {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private static final long LONGEST_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(2);

	private final LockBackend backend;

	private final ScheduledExecutorService scheduler;

	private final Set<Retry> pending = ConcurrentHashMap.newKeySet();

	ReleaseRetries(LockBackend backend, ScheduledExecutorService scheduler) {
		this.backend = backend;
		this.scheduler = scheduler;
	}

	/**
	 * Retries the release of {@code key} by {@code owner} in the background.
	 * @param leaseEndNanos when the lock's lease ends in the store on
	 * {@link System#nanoTime()}, or {@code null} when the store has no lease
	 * @param failure why the release failed
	 */
	void retry(String key, String owner, @Nullable Long leaseEndNanos, RuntimeException failure) {
		Retry retry = new Retry(key, owner, leaseEndNanos);
		String until = (leaseEndNanos != null)
				? "its lease runs out in "
						+ Math.max(0, TimeUnit.NANOSECONDS.toMillis(leaseEndNanos - System.nanoTime())) + " ms"
				: "the session ends";
		logger.warn("Could not release lock '" + key + "' in " + this.backend.name() + " (" + failure.getMessage()
				+ "); retrying in the background until it is released or " + until);
		this.pending.add(retry);
		schedule(retry);
	}

	private void schedule(Retry retry) {
		try {
			this.scheduler.schedule(() -> attempt(retry), retry.pauseNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// The lock service is closing: drain() makes the last attempt.
			logger.debug("Not scheduling another release of lock '" + retry.key + "': the lock service is closing");
		}
	}

	private void attempt(Retry retry) {
		if (!this.pending.contains(retry)) {
			return;
		}
		if (retry.leaseEndNanos != null && System.nanoTime() - retry.leaseEndNanos >= 0) {
			this.pending.remove(retry);
			logger.info("Gave up releasing lock '" + retry.key + "' in " + this.backend.name()
					+ ": its lease has run out, so the store has freed it");
			return;
		}
		retry.attempts++;
		try {
			boolean released = this.backend.release(retry.key, retry.owner);
			this.pending.remove(retry);
			logger.info("Released lock '" + retry.key + "' in " + this.backend.name() + " at retry " + retry.attempts
					+ ((released) ? "" : " (it was no longer held by this owner)"));
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Retry " + retry.attempts + " to release lock '" + retry.key + "' in "
						+ this.backend.name() + " failed: " + ex.getMessage());
			}
			retry.pauseNanos = Math.min(retry.pauseNanos * 2, LONGEST_PAUSE_NANOS);
			schedule(retry);
		}
	}

	/** The store ended the session that held these locks: nothing is left to release. */
	void forgetAll() {
		this.pending.clear();
	}

	int pendingCount() {
		return this.pending.size();
	}

	/** Makes one last attempt for each pending release, on the closing thread. */
	void drain() {
		for (Retry retry : this.pending) {
			if (this.pending.remove(retry)) {
				try {
					this.backend.release(retry.key, retry.owner);
				}
				catch (RuntimeException ex) {
					logger.warn("Could not release lock '" + retry.key + "' in " + this.backend.name()
							+ " at shutdown; the store frees it when its lease or session ends", ex);
				}
			}
		}
	}

	private static final class Retry {

		final String key;

		final String owner;

		final @Nullable Long leaseEndNanos;

		long pauseNanos = FIRST_PAUSE_NANOS;

		int attempts;

		Retry(String key, String owner, @Nullable Long leaseEndNanos) {
			this.key = key;
			this.owner = owner;
			this.leaseEndNanos = leaseEndNanos;
		}

	}

}
