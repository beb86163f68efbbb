package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;

/**
 * Told of what the engine does with locks, for metrics and tracing. Methods are called on
 * the thread that did the work (the watchdog's thread for losses found by renewal) and
 * must return quickly.
 * <p>
 * The key-based methods suit simple counting. {@link #acquiring} gives a
 * {@link LockTracker} per acquisition instead, which suits timers and traces that must
 * follow one lock from the attempt to the release.
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
	 * An acquisition from the store starts (a reentrant entry, which does not reach the
	 * store, is not reported).
	 * @param key the lock key, which may contain values such as ids: never use it as a
	 * metric tag
	 * @param name the lock name, bounded for metrics: the {@code key} of
	 * {@link io.github.distributelock.Lockable @Lockable}, the name given by hand, or
	 * {@link LockNames#fromKey(String) derived from the key}
	 * @param backend the name of the backend, such as {@code redis}
	 * @return told how this acquisition goes
	 */
	default LockTracker acquiring(String key, String name, String backend) {
		return LockTracker.NONE;
	}

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

	/**
	 * A listener that tells each of {@code listeners} in order.
	 * @param listeners the listeners
	 * @return the single listener, {@link #NONE} if there is none, or one that tells all
	 */
	static LockEventListener of(List<? extends LockEventListener> listeners) {
		if (listeners.isEmpty()) {
			return NONE;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		return new CompositeLockEventListener(List.copyOf(listeners));
	}

}
