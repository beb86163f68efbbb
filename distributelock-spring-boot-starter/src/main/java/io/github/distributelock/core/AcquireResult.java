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
 * @param queued whether a claim not acquired may have a place in the store's queue
 * ({@link LockKind#queued()} kinds), which a caller that gives up must leave;
 * {@code false} when the attempt left nothing of the claim in the store (see
 * {@link #notQueued()})
 * @since 1.0.0
 */
public record AcquireResult(boolean acquired, long fencingToken, @Nullable Duration holderLeaseRemaining,
		@Nullable Object hint, boolean queued) {

	/**
	 * A result whose claim, if not acquired, may have a place in the store's queue.
	 * @param acquired whether the lock was taken
	 * @param fencingToken the fencing token of the acquisition, when acquired
	 * @param holderLeaseRemaining how long the current holder's lease still runs, when
	 * not acquired and the store knows it
	 * @param hint what the backend wants to know of this attempt when asked to wait
	 */
	public AcquireResult(boolean acquired, long fencingToken, @Nullable Duration holderLeaseRemaining,
			@Nullable Object hint) {
		this(acquired, fencingToken, holderLeaseRemaining, hint, !acquired);
	}

	/**
	 * The same answer from an attempt that left nothing of its claim in the store, as a
	 * refused reader or permit caller leaves nothing where only writers and fair callers
	 * queue: a caller that then gives up sends no release to leave a queue, so a refused
	 * call costs one round trip.
	 * @return the result, not queued
	 */
	public AcquireResult notQueued() {
		return new AcquireResult(this.acquired, this.fencingToken, this.holderLeaseRemaining, this.hint, false);
	}

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
