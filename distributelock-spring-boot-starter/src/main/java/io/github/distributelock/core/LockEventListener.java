package io.github.distributelock.core;

import java.time.Duration;

/**
 * Told of what the engine does with locks, for metrics and tracing. Methods are called on
 * the thread that did the work (the watchdog's thread for losses found by renewal) and
 * must return quickly.
 *
 * @author distributelock
 * @since 1.0.0
 */
public interface LockEventListener {

	/**
	 * A listener that does nothing.
	 */
	LockEventListener NONE = new LockEventListener() {
	};

	/**
	 * A lock was taken from the store (not a reentrant entry).
	 * @param key the lock key
	 * @param waited how long the caller waited
	 */
	default void acquired(String key, Duration waited) {
	}

	/**
	 * A lock was not taken within the caller's wait time.
	 * @param key the lock key
	 * @param waited how long the caller waited
	 */
	default void notAcquired(String key, Duration waited) {
	}

	/**
	 * A lock was released in the store.
	 * @param key the lock key
	 * @param held how long it was held
	 */
	default void released(String key, Duration held) {
	}

	/**
	 * A lease was renewed by the watchdog.
	 * @param key the lock key
	 */
	default void renewed(String key) {
	}

	/**
	 * A lock was lost while held: its lease ran out or the store no longer had it.
	 * @param key the lock key
	 */
	default void lost(String key) {
	}

}
