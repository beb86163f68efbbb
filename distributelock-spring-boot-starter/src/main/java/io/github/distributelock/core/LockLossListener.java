package io.github.distributelock.core;

/**
 * Told by a {@link LockBackend} that the locks taken through it are at risk or lost
 * because the store ended what kept them, such as the client's session, rather than
 * because a lease ran out (which the watchdog finds by itself).
 * <p>
 * {@link DefaultDistributeLock} registers one with a {@link SessionLockBackend} at
 * construction: a loss then turns {@link io.github.distributelock.LockHandle#isHeld()}
 * false, tells the lost lock listeners, counts the lost-lock meter and, when configured,
 * makes the release throw {@link io.github.distributelock.LockLostException}.
 * <p>
 * <b>Note:</b> methods are called on the store client's own thread; they must return
 * quickly and must not call the store.
 *
 * @since 1.0.0
 */
public interface LockLossListener {

	/**
	 * The connection to the store is interrupted: the locks taken through the backend are
	 * still held, but are lost if it does not come back in time.
	 * @param reason what happened, for the log
	 */
	default void locksAtRisk(String reason) {
	}

	/**
	 * The connection to the store came back in time after {@link #locksAtRisk}: the locks
	 * taken through the backend are held without doubt again.
	 * @param reason what happened, for the log
	 */
	default void locksSafe(String reason) {
	}

	/**
	 * Every lock taken through the backend before this call is lost.
	 * @param reason what happened, for the log
	 */
	void locksLost(String reason);

}
