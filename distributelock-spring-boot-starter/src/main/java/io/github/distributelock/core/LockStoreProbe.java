package io.github.distributelock.core;

/**
 * One round trip to a lock store that changes nothing, for health checks. Every backend
 * of this project implements it with its store's own check ({@code PING}, a read of the
 * root node, a read of one key's lease in the lock table).
 *
 * @since 1.0.0
 */
public interface LockStoreProbe {

	/**
	 * Asks the store whether it answers, and waits for the answer.
	 * @throws RuntimeException if the store cannot be reached or answers wrongly
	 */
	void probe();

}
