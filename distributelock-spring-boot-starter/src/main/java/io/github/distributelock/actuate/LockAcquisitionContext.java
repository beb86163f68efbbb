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
public class LockAcquisitionContext extends LockObservationContext {

	private volatile @Nullable Result result;

	/**
	 * Creates a context.
	 * @param lockKey the full lock key
	 * @param lockName the bounded lock name
	 * @param backend the backend name
	 */
	public LockAcquisitionContext(String lockKey, String lockName, String backend) {
		super(lockKey, lockName, backend);
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
		 * The wait time passed while another owner held the lock, and the caller skips
		 * its work: a scheduled {@code @Lockable} method that another instance runs, or a
		 * request {@link io.github.distributelock.LockRequest#withSkipWhenBusy(boolean)
		 * that skips when busy}.
		 * @since 1.0.0
		 */
		SKIPPED,

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
