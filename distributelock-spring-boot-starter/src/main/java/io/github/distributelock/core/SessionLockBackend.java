package io.github.distributelock.core;

/**
 * A {@link LockBackend} whose locks live as long as the client's session with the store
 * (ZooKeeper's ephemeral nodes), not by a lease: the engine renews nothing, a fixed lease
 * has no effect, and the backend tells when the session is at risk or lost.
 *
 * @since 1.0.0
 */
public interface SessionLockBackend extends LockBackend {

	/**
	 * Registers a listener to tell when the locks taken through this backend are at risk
	 * or lost because the session ended. {@link DefaultDistributeLock} registers itself
	 * at construction.
	 * @param listener the listener
	 */
	void addLossListener(LockLossListener listener);

	/**
	 * Removes a listener added with {@link #addLossListener(LockLossListener)}.
	 * @param listener the listener
	 */
	void removeLossListener(LockLossListener listener);

}
