package io.github.distributelock.actuate;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Observation.Context} of one held lock, from its acquisition to its release.
 *
 * @since 1.0.0
 */
public class LockHoldContext extends Observation.Context {

	private final String lockKey;

	private final String lockName;

	private final String backend;

	private final long fencingToken;

	private volatile @Nullable String shard;

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
		this.lockKey = lockKey;
		this.lockName = lockName;
		this.backend = backend;
		this.fencingToken = fencingToken;
	}

	/**
	 * The full lock key, with the values in it: fit for traces, never for metric tags.
	 * @return the lock key
	 */
	public String getLockKey() {
		return this.lockKey;
	}

	/**
	 * The lock name, bounded: the {@code @Lockable} key, or the name of a lock taken by
	 * hand.
	 * @return the lock name
	 */
	public String getLockName() {
		return this.lockName;
	}

	/**
	 * The backend name, such as {@code redis}.
	 * @return the backend name
	 */
	public String getBackend() {
		return this.backend;
	}

	/**
	 * The fencing token of the acquisition.
	 * @return the fencing token
	 */
	public long getFencingToken() {
		return this.fencingToken;
	}

	/**
	 * The shard that holds the lock, when the backend spreads its keys over several
	 * stores.
	 * @return the shard's name, or {@code null} if the backend has no shards
	 */
	public @Nullable String getShard() {
		return this.shard;
	}

	/**
	 * Sets the shard that holds the lock.
	 * @param shard the shard's name
	 */
	public void setShard(@Nullable String shard) {
		this.shard = shard;
	}

	/**
	 * Whether the lock was lost before it was released.
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
