package io.github.distributelock.core;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * How a {@link HeldLock} releases its key in the store: by default
 * {@link StoreCalls#release}, alone; for the keys of a multi-key handle, through a
 * {@link MultiKeyRelease} that sends them in one call.
 */
@FunctionalInterface
interface StoreRelease {

	/**
	 * Releases the lock in the store; when the store fails, retries in the background
	 * until {@code leaseEndNanos} and completes exceptionally at once.
	 * @param claim the key and owner, and the caller's thread if it blocks
	 * @param leaseEndNanos when the lease ends on {@link System#nanoTime()}, or
	 * {@code null} for a store without leases
	 * @return whether the store still had the lock for this owner
	 */
	CompletableFuture<Boolean> release(LockBackend.Claim claim, @Nullable Long leaseEndNanos);

}
