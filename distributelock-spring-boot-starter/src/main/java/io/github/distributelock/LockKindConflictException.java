package io.github.distributelock;

/**
 * Thrown at once when a lock is asked for in a way that conflicts with how its key is
 * held: a reader asking for the write lock of its own key (which would deadlock), or a
 * key held as one kind of lock (exclusive, read/write, permits) asked for as another.
 *
 * @since 1.0.0
 */
public class LockKindConflictException extends DistributeLockException {

	/**
	 * Creates an exception.
	 * @param message what conflicts, and what to do instead
	 * @param lockKey the key
	 * @param backend the backend's name
	 */
	public LockKindConflictException(String message, String lockKey, String backend) {
		super(message, lockKey, backend, null);
	}

}
