package io.github.distributelock.actuate;

import org.jspecify.annotations.Nullable;

import io.micrometer.observation.Observation;

/**
 * The {@link Observation.Context} of a lock, shared by the observation of an attempt to
 * take it ({@link LockAcquisitionContext}) and that of its hold
 * ({@link LockHoldContext}).
 *
 * @since 1.0.0
 */
public abstract class LockObservationContext extends Observation.Context {

	private final String lockKey;

	private final String lockName;

	private volatile @Nullable String shard;

	private volatile String kind = "exclusive";

	private final String backend;

	/**
	 * Creates a context.
	 * @param lockKey the full lock key
	 * @param lockName the bounded lock name
	 * @param backend the backend name
	 */
	protected LockObservationContext(String lockKey, String lockName, String backend) {
		this.lockKey = lockKey;
		this.lockName = lockName;
		this.backend = backend;
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
	 * The kind of lock: {@code exclusive}, {@code fair}, {@code read}, {@code write} or
	 * {@code permits}.
	 * @return the kind
	 */
	public String getKind() {
		return this.kind;
	}

	/**
	 * Sets the kind of lock.
	 * @param kind the kind
	 */
	public void setKind(String kind) {
		this.kind = kind;
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

}
