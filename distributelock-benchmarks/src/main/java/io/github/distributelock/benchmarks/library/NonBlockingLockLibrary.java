package io.github.distributelock.benchmarks.library;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A {@link LockLibrary} whose users wait without a thread: its contended callers are
 * subscriptions, not threads, as a reactive application runs them. The contended harness
 * runs each caller as {@link #repeatUnderLock}, so that no thread is parked per caller
 * and a hand-off is a continuation, not a wake-up.
 */
public interface NonBlockingLockLibrary extends LockLibrary {

	/**
	 * Takes the lock, runs {@code work} under it and releases it, again and again, the
	 * next time once the previous release completed, until {@code stop} says so.
	 * @param key the lock key
	 * @param wait the longest single wait
	 * @param work what runs under the lock, with no I/O
	 * @param timedOut what runs when a wait ends without the lock
	 * @param stop whether to stop, asked before each acquisition
	 * @return completes when the caller stopped, or failed
	 */
	CompletableFuture<Void> repeatUnderLock(String key, Duration wait, Runnable work, Runnable timedOut,
			BooleanSupplier stop);

}
