package io.github.distributelock.actuate;

import java.util.Locale;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * The {@link Observation.Context} of one attempt to take a lock, from the call to the
 * lock being taken, the wait time passing or a failure.
 *
 * @since 1.0.0
 */
public class LockAcquisitionContext extends Observation.Context {

	private final String lockKey;

	private final String lockName;

	private final String backend;

	private volatile @Nullable Result result;

	private volatile @Nullable String shard;

	/**
	 * Creates a context.
	 * @param lockKey the full lock key
	 * @param lockName the bounded lock name
	 * @param backend the backend name
	 */
	public LockAcquisitionContext(String lockKey, String lockName, String backend) {
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
	 * How the attempt ended, or {@code null} while it runs.
	 * @return the result
	 */
	public @Nullable Result getResult() {
		return this.result;
	}

	/**
	 * Sets how the attempt ended.
	 * @param result the result
	 */
	public void setResult(Result result) {
		this.result = result;
	}

	/**
	 * How an attempt to take a lock ended.
	 */
	public enum Result {

		/** The lock was taken. */
		ACQUIRED,

		/** The wait time passed while another owner held the lock. */
		TIMEOUT,

		/**
		 * The store failed, the thread was interrupted, or the lock service shut down.
		 */
		ERROR;

		/**
		 * The value of the {@code result} tag.
		 * @return the lower-case name
		 */
		public String tagValue() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

}
