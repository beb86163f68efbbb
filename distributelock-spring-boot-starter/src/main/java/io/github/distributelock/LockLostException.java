package io.github.distributelock;

/**
 * Thrown at release when the lock had been lost before it: its lease ran out or the store
 * gave it to another holder, so the work done under it may have run concurrently with
 * another holder's. Thrown only when {@code distributelock.throw-on-lost} is set;
 * otherwise the loss is logged and counted.
 *
 * @since 1.0.0
 */
public class LockLostException extends DistributeLockException {

	/**
	 * Creates an exception for a lock lost before its release.
	 * @param lockKey the lock key
	 * @param backend the name of the backend
	 */
	public LockLostException(String lockKey, String backend) {
		super("Lock '" + lockKey + "' was lost before it was released (lease expired or taken over in " + backend
				+ "); the work done under it may have overlapped with another holder", lockKey, backend, null);
	}

}
