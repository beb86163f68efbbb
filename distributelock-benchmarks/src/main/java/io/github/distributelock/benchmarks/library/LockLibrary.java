package io.github.distributelock.benchmarks.library;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One way to take a distributed lock, as a user of that library would write it: ours, the
 * raw-client floor, or a peer library. Thread-safe: the threads of one JVM share one
 * instance, as they would share the library's client in an application.
 */
public interface LockLibrary extends AutoCloseable {

	/**
	 * Takes the lock, waiting up to {@code wait} the way the library waits.
	 * @param key the lock key
	 * @param wait the longest wait
	 * @return what releases the lock, or {@code null} if it was not taken in time
	 * @throws Exception if the library fails
	 */
	@Nullable Release lock(String key, Duration wait) throws Exception;

	/**
	 * One uncontended lock and unlock, the operation the latency benchmarks time.
	 * @param key the lock key
	 * @throws Exception if the library fails or the lock is not free
	 */
	default void lockAndUnlock(String key) throws Exception {
		Release release = lock(key, UNCONTENDED_WAIT);
		if (release == null) {
			throw new IllegalStateException("Uncontended lock '" + key + "' was not taken");
		}
		release.release();
	}

	/** The wait of an uncontended lock: long enough never to matter, but bounded. */
	Duration UNCONTENDED_WAIT = Duration.ofSeconds(10);

	/**
	 * Releases a lock taken by {@link LockLibrary#lock}, on the thread that took it.
	 */
	@FunctionalInterface
	interface Release {

		void release() throws Exception;

	}

}
