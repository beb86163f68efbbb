package io.github.distributelock.core;

/**
 * Follows one acquisition of a lock for a {@link LockEventListener}, from the first
 * attempt at the store to the release: {@link #acquired}, {@link #notAcquired},
 * {@link #skipped} or {@link #failed} once, then, if the lock was taken, any number of
 * renewals, at most one loss and one {@link #released}.
 * <p>
 * With the blocking API the attempt's methods are called on the thread that asked for the
 * lock; with the non-blocking API {@link #detached()} is called on that thread when the
 * call returns, and the attempt's methods later on a thread of the store client or of the
 * lock service. Renewals and losses found by the watchdog are told on its thread, the
 * release on the thread that released. Methods must return quickly and not throw.
 *
 * @since 1.0.0
 */
public interface LockTracker {

	/**
	 * A tracker that does nothing.
	 */
	LockTracker NONE = new LockTracker() {
	};

	/**
	 * The acquisition goes on without the thread that asked for it (the non-blocking
	 * API): whatever the tracker bound to that thread must be unbound now.
	 * @since 1.0.0
	 */
	default void detached() {
	}

	/**
	 * The lock was taken.
	 * @param fencingToken the fencing token of this acquisition
	 */
	default void acquired(long fencingToken) {
	}

	/**
	 * The lock was not taken within the caller's wait time.
	 */
	default void notAcquired() {
	}

	/**
	 * The lock was not taken within the caller's wait time, and the caller skips its work
	 * ({@link io.github.distributelock.LockRequest#withSkipWhenBusy(boolean)}), as a
	 * scheduled job does when another instance runs it. Told instead of
	 * {@link #notAcquired()}, which it calls by default.
	 * @since 1.0.0
	 */
	default void skipped() {
		notAcquired();
	}

	/**
	 * The attempt failed: the store failed, the thread was interrupted, or the lock
	 * service shut down while it waited.
	 * @param failure what went wrong
	 */
	default void failed(Throwable failure) {
	}

	/**
	 * The watchdog renewed the lease.
	 */
	default void renewed() {
	}

	/**
	 * The watchdog could not renew the lease and will retry while the lease lasts.
	 * @param failure the failure of the store
	 */
	default void renewalFailed(Throwable failure) {
	}

	/**
	 * The release failed for a store error; it is retried in the background until the
	 * lease would have ended. Reported before {@link #released()}.
	 * @param failure the failure of the store
	 * @since 1.0.0
	 */
	default void releaseFailed(Throwable failure) {
	}

	/**
	 * The lock was lost while held: its lease ran out or the store no longer had it.
	 * Reported before {@link #released()} when found at release. The hold ends here for
	 * whoever counts the locks held now, though {@link #released()} follows only when the
	 * handle is closed.
	 * @param reason why it was lost
	 */
	default void lost(String reason) {
	}

	/**
	 * The lock was given back, or the attempt to give it back to the store ended.
	 */
	default void released() {
	}

}
