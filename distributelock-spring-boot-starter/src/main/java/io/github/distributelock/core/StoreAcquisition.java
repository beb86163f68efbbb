package io.github.distributelock.core;

import java.time.Duration;

import io.github.distributelock.DistributeLockException;
import org.jspecify.annotations.Nullable;

/**
 * The wait loop of one caller at the store: try, and while another owner holds the lock
 * and the deadline has not passed, wait for the store's release notification, bounded by
 * the deadline and by the holder's remaining lease (so a crashed holder, who never
 * notifies, is noticed when its lease runs out).
 */
final class StoreAcquisition {

	private final EngineContext context;

	private final KeyState keyState;

	private final String owner;

	private final @Nullable Duration fixedLease;

	private final long deadlineNanos;

	private final LockTracker tracker;

	StoreAcquisition(EngineContext context, KeyState keyState, String owner, @Nullable Duration fixedLease,
			long deadlineNanos, LockTracker tracker) {
		this.context = context;
		this.keyState = keyState;
		this.owner = owner;
		this.fixedLease = fixedLease;
		this.deadlineNanos = deadlineNanos;
		this.tracker = tracker;
	}

	@Nullable HeldLock run(@Nullable Thread reentrantThread) throws InterruptedException {
		String key = this.keyState.key;
		Duration lease = (this.fixedLease != null) ? this.fixedLease : this.context.watchdogLease;
		while (true) {
			this.context.shutdown.requireOpen(key);
			long attemptStart = System.nanoTime();
			long lossReports = this.context.lossReports();
			AcquireResult result = attempt(key, lease, attemptStart);
			if (result.acquired()) {
				return new HeldLock(this.context, this.keyState, this.owner, result, reentrantThread, this.fixedLease,
						attemptStart, lossReports, this.tracker);
			}
			long remaining = this.deadlineNanos - System.nanoTime();
			if (remaining <= 0) {
				return null;
			}
			Duration holderLease = result.holderLeaseRemaining();
			if (holderLease != null && !holderLease.isNegative() && !holderLease.isZero()) {
				// Wake at the holder's expiry, plus a millisecond so the store has
				// expired it.
				remaining = Math.min(remaining, DefaultDistributeLock.saturatedNanos(holderLease) + 1_000_000);
			}
			Duration maxWait = Duration.ofNanos(remaining);
			this.context.shutdown.await(key, () -> {
				try {
					this.context.backend.awaitRelease(key, maxWait);
				}
				catch (RuntimeException ex) {
					if (Interrupts.causedInterrupt(ex)) {
						throw Interrupts.interrupted(key, this.context.backend.name(), ex);
					}
					throw this.context.failure(key, "wait for", ex);
				}
				return null;
			});
		}
	}

	private AcquireResult attempt(String key, Duration lease, long attemptStart) throws InterruptedException {
		try {
			return this.context.call(key, "acquire", () -> this.context.backend.tryAcquire(key, this.owner, lease));
		}
		catch (DistributeLockException ex) {
			boolean interrupted = Interrupts.causedInterrupt(ex);
			// The store may have applied the attempt before failing to answer (or before
			// an interrupt stopped the wait for its answer): give it back.
			Long leaseEnd = this.context.backend.leasesExpire()
					? attemptStart + DefaultDistributeLock.saturatedNanos(lease) : null;
			try {
				this.context.release(key, this.owner, leaseEnd);
			}
			catch (RuntimeException releaseFailure) {
				ex.addSuppressed(releaseFailure);
			}
			if (interrupted) {
				throw Interrupts.interrupted(key, this.context.backend.name(), ex);
			}
			throw ex;
		}
	}

}
