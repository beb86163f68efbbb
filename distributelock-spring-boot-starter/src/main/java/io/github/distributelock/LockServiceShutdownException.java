package io.github.distributelock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when a lock is asked for while the lock service shuts down (its application
 * context is closing, or it was closed directly), or its shutdown ends an acquisition in
 * progress: nothing is held, and nothing is left in the store. A
 * {@link Lockable @Lockable} method that skips a busy lock (a {@code @Scheduled} job, or
 * {@code onBusy = SKIP}) skips quietly instead.
 *
 * @since 1.0.0
 */
public class LockServiceShutdownException extends DistributeLockException {

	/**
	 * Creates an exception.
	 * @param lockKey the key
	 * @param backend the backend's name
	 * @param reason why the lock service shuts down, such as {@code "the application
	 * context is closing"}
	 * @param cause what ended the acquisition, if anything did besides the shutdown
	 */
	public LockServiceShutdownException(String lockKey, String backend, String reason, @Nullable Throwable cause) {
		super("Could not acquire lock '" + lockKey + "' in " + backend + ": the lock service is shutting down ("
				+ reason + ")", lockKey, backend, cause);
	}

}
