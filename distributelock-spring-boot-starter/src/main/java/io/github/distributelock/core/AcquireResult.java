package io.github.distributelock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The outcome of one {@link LockBackend#tryAcquire attempt} to take a lock.
 *
 * @param acquired whether the lock was taken
 * @param fencingToken the fencing token of the acquisition, when acquired
 * @param holderLeaseRemaining how long the current holder's lease still runs, when not
 * acquired and the store knows it; the engine wakes the waiter when it runs out
 * @param hint what the backend wants to know of this attempt when it is asked to
 * {@link LockBackend#awaitRelease wait} after it, such as the count of release messages
 * it had heard; opaque to the engine
 * @since 1.0.0
 */
public record AcquireResult(boolean acquired, long fencingToken, @Nullable Duration holderLeaseRemaining,
		@Nullable Object hint) {

	/**
	 * The lock was taken.
	 * @param fencingToken the fencing token of this acquisition
	 * @return the result
	 */
	public static AcquireResult acquired(long fencingToken) {
		return new AcquireResult(true, fencingToken, null, null);
	}

	/**
	 * Another owner holds the lock.
	 * @param holderLeaseRemaining how long its lease still runs, or {@code null} if
	 * unknown
	 * @return the result
	 */
	public static AcquireResult heldByAnother(@Nullable Duration holderLeaseRemaining) {
		return new AcquireResult(false, 0, holderLeaseRemaining, null);
	}

	/**
	 * Another owner holds the lock, with a hint for the wait that follows.
	 * @param holderLeaseRemaining how long its lease still runs, or {@code null} if
	 * unknown
	 * @param hint what the backend wants to know when asked to wait after this attempt
	 * @return the result
	 */
	public static AcquireResult heldByAnother(@Nullable Duration holderLeaseRemaining, @Nullable Object hint) {
		return new AcquireResult(false, 0, holderLeaseRemaining, hint);
	}

}
