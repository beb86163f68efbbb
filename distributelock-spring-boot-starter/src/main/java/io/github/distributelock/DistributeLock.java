package io.github.distributelock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * A distributed lock over the store chosen by {@code distributelock.type}.
 * <p>
 * Every call is a {@link LockRequest}; the other methods are shorthands for one. The
 * handle style returns a {@link LockHandle} to close, ideally in a try-with-resources
 * block; it is reentrant for the thread that took it and carries a fencing token.
 * {@link #tryAcquireAsync(LockRequest)} waits without blocking a thread. The value style
 * of the original {@code cn.dslcode} starter ({@link #tryLock(String, String, int, int)}
 * and {@link #releaseLock(String, String)}) is owned by the value the caller passes, so
 * only that value releases it.
 * <p>
 * Every store failure surfaces as {@link DistributeLockException}; no call waits past its
 * wait time by more than one store round trip.
 * <p>
 * <b>Note:</b> on ZooKeeper ({@code distributelock.type=zookeeper}) a lock lasts as long
 * as the client's session, which is its lease: a fixed {@code leaseTime} or
 * {@code timeoutMs} has no effect there, and the lock is held until it is released or the
 * session is lost.
 *
 * @since 1.0.0
 */
public interface DistributeLock {

	/**
	 * Tries to take the lock the request describes, waiting up to its wait time on the
	 * calling thread.
	 * <p>
	 * If the calling thread already holds the key through a handle (and the request names
	 * no owner value), a new handle for the same lock is returned at once; the lock is
	 * released when the outermost handle is closed.
	 * @param request what to lock, how long to wait, which lease
	 * @return the handle, or empty if the lock was not taken within the wait time
	 * @throws DistributeLockException if the store fails for the whole wait time, or the
	 * lock service shuts down
	 * @throws InterruptedException if the thread is interrupted before or while waiting
	 * @since 1.0.0
	 */
	Optional<LockHandle> tryAcquire(LockRequest request) throws InterruptedException;

	/**
	 * Tries to take the lock the request describes without blocking the calling thread:
	 * on Redis and ZooKeeper no thread waits while the lock is busy, on JDBC the
	 * statements run on a bounded pool of the backend's.
	 * <p>
	 * Not reentrant: every call is a new acquisition, owned by its handle. The future
	 * completes on a thread of the store's client or of the lock service; run blocking
	 * work with the {@code ...Async} methods of {@link CompletableFuture} and an executor
	 * of yours. Cancelling the future, or completing it any other way before it is (such
	 * as {@code orTimeout}), gives up the wait, and a lock taken anyway is released.
	 * @param request what to lock, how long to wait, which lease
	 * @return completes with the handle, or empty if the lock was not taken within the
	 * wait time; or exceptionally with {@link DistributeLockException}
	 * @since 1.0.0
	 */
	CompletableFuture<Optional<LockHandle>> tryAcquireAsync(LockRequest request);

	/**
	 * Tries to take the lock, waiting up to {@code waitTime}; shorthand for
	 * {@link #tryAcquire(LockRequest)}.
	 * @param lockKey the lock key
	 * @param waitTime how long to wait; {@link Duration#ZERO} makes one attempt
	 * @param leaseTime a fixed lease that is never renewed, or {@code null} for a lease
	 * that a watchdog renews until the handle is closed
	 * @return the handle, or empty if the lock was not taken within {@code waitTime}
	 * @throws DistributeLockException if the store fails
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	default Optional<LockHandle> tryAcquire(String lockKey, Duration waitTime, @Nullable Duration leaseTime)
			throws InterruptedException {
		return tryAcquire(LockRequest.of(lockKey).withWaitTime(waitTime).withLeaseTime(leaseTime));
	}

	/**
	 * Tries to take the lock like {@link #tryAcquire(String, Duration, Duration)}, naming
	 * it for metrics and traces (see {@link LockRequest#withName(String)}).
	 * @param lockKey the lock key
	 * @param lockName the lock name for metrics, or {@code null} to derive it from the
	 * key
	 * @param waitTime how long to wait; {@link Duration#ZERO} makes one attempt
	 * @param leaseTime a fixed lease that is never renewed, or {@code null} for a lease
	 * that a watchdog renews until the handle is closed
	 * @return the handle, or empty if the lock was not taken within {@code waitTime}
	 * @throws DistributeLockException if the store fails
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	default Optional<LockHandle> tryAcquire(String lockKey, @Nullable String lockName, Duration waitTime,
			@Nullable Duration leaseTime) throws InterruptedException {
		return tryAcquire(LockRequest.of(lockKey).withName(lockName).withWaitTime(waitTime).withLeaseTime(leaseTime));
	}

	/**
	 * Tries to take the lock, owned by {@code lockValue}.
	 * @param lockKey the lock key
	 * @param lockValue the owner of the lock: only this value releases it
	 * @param waitTimeMs how long to wait in milliseconds; {@code 0} makes one attempt
	 * @param timeoutMs a fixed lease in milliseconds, or {@code -1} for a lease renewed
	 * until {@link #releaseLock(String, String)}
	 * @return whether the lock was taken
	 * @throws DistributeLockException if the store fails
	 * @throws InterruptedException if the thread is interrupted while waiting
	 */
	default boolean tryLock(String lockKey, String lockValue, int waitTimeMs, int timeoutMs)
			throws InterruptedException {
		LockRequest request = LockRequest.of(lockKey)
			.withOwner(lockValue)
			.withWaitTime(Duration.ofMillis(waitTimeMs))
			.withLeaseTime(leaseFromMillis(timeoutMs));
		return tryAcquire(request).isPresent();
	}

	/**
	 * Releases a lock taken with {@link #tryLock(String, String, int, int)}, if
	 * {@code lockValue} still owns it. The value may come from another thread or
	 * instance.
	 * @param lockKey the lock key
	 * @param lockValue the owner passed to {@code tryLock}
	 * @return {@code true} if this value held the lock and it is now released,
	 * {@code false} if it was not (or no longer) held by this value
	 * @throws IllegalArgumentException if the key is null or blank, or the value null or
	 * empty
	 * @throws DistributeLockException if the store fails
	 * @throws IllegalStateException if called on a thread of the store's client that
	 * delivers the lock's answers for a value this instance does not hold (a lock it
	 * holds is released there without waiting for the store's answer)
	 */
	boolean releaseLock(String lockKey, String lockValue);

	/**
	 * Runs {@code onLocked} under the lock, or {@code onFailed} if the lock was not taken
	 * within {@code waitTimeMs}; the lock is released when {@code onLocked} returns or
	 * throws.
	 * @param <T> the type of the result
	 * @param lockKey the lock key
	 * @param waitTimeMs how long to wait in milliseconds
	 * @param timeoutMs a fixed lease in milliseconds, or {@code -1} for a renewed lease
	 * @param onLocked the work to run under the lock
	 * @param onFailed the work to run when the lock was not taken
	 * @return the result of whichever callback ran
	 * @throws Exception what the callback throws, or {@link DistributeLockException} if
	 * the store fails
	 */
	default <T extends @Nullable Object> T tryLockAndCallBack(String lockKey, int waitTimeMs, int timeoutMs,
			CallBackExecutor<T> onLocked, CallBackExecutor<T> onFailed) throws Exception {
		Optional<LockHandle> handle = tryAcquire(LockRequest.of(lockKey)
			.withWaitTime(Duration.ofMillis(waitTimeMs))
			.withLeaseTime(leaseFromMillis(timeoutMs)));
		if (handle.isEmpty()) {
			return onFailed.execute();
		}
		try (LockHandle held = handle.get()) {
			return onLocked.execute();
		}
	}

	private static @Nullable Duration leaseFromMillis(int timeoutMs) {
		if (timeoutMs == -1) {
			return null;
		}
		if (timeoutMs <= 0) {
			throw new IllegalArgumentException("timeoutMs must be positive (a fixed lease in milliseconds) or -1 "
					+ "(a lease renewed until release), was " + timeoutMs);
		}
		return Duration.ofMillis(timeoutMs);
	}

}
