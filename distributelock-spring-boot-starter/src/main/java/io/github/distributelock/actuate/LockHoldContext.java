package io.github.distributelock.actuate;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Observation.Context} of one held lock, from its acquisition to its release,
 * or to its loss if it is lost first.
 *
 * @since 1.0.0
 */
public class LockHoldContext extends LockObservationContext {

	private final long fencingToken;

	private volatile boolean lost;

	private volatile boolean released;

	/**
	 * Creates a context.
	 * @param lockKey the full lock key
	 * @param lockName the bounded lock name
	 * @param backend the backend name
	 * @param fencingToken the fencing token of the acquisition
	 */
	public LockHoldContext(String lockKey, String lockName, String backend, long fencingToken) {
		super(lockKey, lockName, backend);
		this.fencingToken = fencingToken;
	}

	/**
	 * The fencing token of the acquisition.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * Whether the lock was lost before it was released, which ends the hold at the loss.
	 * @return whether it was lost
	 */
	public boolean isLost() {
		return this.lost;
	}

	/**
	 * Marks the lock as lost before its release.
	 */
	public void markLost() {
		this.lost = true;
	}

	/**
	 * Whether the lock was released, which ends the hold.
	 * @return whether it was released
	 */
	public boolean isReleased() {
		return this.released;
	}

	/**
	 * Marks the lock as released.
	 */
	public void markReleased() {
		this.released = true;
	}

}
