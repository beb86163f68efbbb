package io.github.distributelock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the lock store fails or cannot be reached.
 *
 * @since 1.0.0
 */
public class DistributeLockException extends RuntimeException {

	private final String lockKey;

	private final String backend;

	/**
	 * Creates an exception for a failure of the store.
	 * @param message what failed
	 * @param lockKey the key being locked or released
	 * @param backend the name of the backend
	 * @param cause the failure of the store
	 */
	public DistributeLockException(String message, String lockKey, String backend, @Nullable Throwable cause) {
		super(message, cause);
		this.lockKey = lockKey;
		this.backend = backend;
	}

	/**
	 * The key being locked or released when the store failed.
	 * @return the lock key
	 */
	public String getLockKey() {
		return this.lockKey;
	}

	/**
	 * The backend whose store failed, such as {@code redis}.
	 * @return the backend name
	 */
	public String getBackend() {
		return this.backend;
	}

}
