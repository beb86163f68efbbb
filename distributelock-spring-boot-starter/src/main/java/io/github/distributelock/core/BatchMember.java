package io.github.distributelock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One key of a {@link BatchAcquisition}: this JVM's use of the key, what is asked for it,
 * and the tracker that follows its acquisition and, once taken, its hold.
 *
 * @param slot this JVM's use of the key
 * @param request what is asked for the key, under the call's deadline
 * @param tracker follows the key's acquisition and hold
 */
record BatchMember(LocalLocks.Slot slot, Acquisition.Request request, LockTracker tracker) {

	LockBackend.Claim claim() {
		return this.request.claim();
	}

	/** The lease the store is asked for. */
	Duration storeLease(Watchdog watchdog) {
		return watchdog.storeLease(this.request.fixedLease());
	}

	/** When the lease of an attempt that began at {@code attemptStart} would end. */
	@Nullable Long leaseEnd(Watchdog watchdog, long attemptStart) {
		return watchdog.newLease(this.request.fixedLease(), attemptStart).endNanos();
	}

	/**
	 * The key as taken by the attempt that began at {@code attemptStart}, held through
	 * its slot.
	 */
	HeldLock hold(HeldLock.Parts parts, long fencingToken, long attemptStart) {
		Lease lease = parts.watchdog().newLease(this.request.fixedLease(), attemptStart);
		HeldLock lock = new HeldLock(parts, this.slot, this.request.claim(), fencingToken,
				this.request.reentrancyOwner(), lease, this.request.minimumHold(), this.tracker, attemptStart);
		this.slot.hold(lock);
		return lock;
	}

	/**
	 * Tells the tracker that the key was not taken: the call failed with {@code failure},
	 * or, when it is {@code null}, the wait time passed.
	 */
	void notTaken(@Nullable Throwable failure) {
		if (failure != null) {
			this.tracker.failed(failure);
		}
		else if (this.request.skipWhenBusy()) {
			this.tracker.skipped();
		}
		else {
			this.tracker.notAcquired();
		}
	}

}
