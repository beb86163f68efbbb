package io.github.distributelock.core;

import java.util.List;

/**
 * Told of every acquisition from the store, for metrics and tracing: it gives a
 * {@link LockTracker} that follows that one acquisition from the attempt to the release.
 *
 * @since 1.0.0
 */
@FunctionalInterface
public interface LockEventListener {

	/**
	 * A listener that follows nothing.
	 */
	LockEventListener NONE = (key, name, backend) -> LockTracker.NONE;

	/**
	 * An acquisition from the store starts (a reentrant entry, which does not reach the
	 * store, is not reported). Called on the thread that asked for the lock, which for
	 * the non-blocking and reactive APIs is often an event loop or a Reactor non-blocking
	 * thread: a listener must return at once, and never block or wait for I/O.
	 * @param key the lock key, which may contain values such as ids: never use it as a
	 * metric tag
	 * @param name the lock name, bounded for metrics: the {@code key} of
	 * {@link io.github.distributelock.Lockable @Lockable}, the name given by hand, or
	 * {@link LockNames#fromKey(String) derived from the key}
	 * @param backend the name of the backend, such as {@code redis}
	 * @return told how this acquisition goes
	 */
	LockTracker acquiring(String key, String name, String backend);

	/**
	 * An acquisition of a given kind of lock from the store starts; by default the same
	 * as {@link #acquiring(String, String, String)}.
	 * @param key the lock key
	 * @param name the lock name, bounded for metrics
	 * @param backend the name of the backend
	 * @param kind the kind of lock
	 * @return told how this acquisition goes
	 * @since 1.0.0
	 */
	default LockTracker acquiring(String key, String name, String backend, LockKind kind) {
		return acquiring(key, name, backend);
	}

	/**
	 * A listener that gives trackers telling each of {@code listeners} in order.
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
		List<LockEventListener> all = List.copyOf(listeners);
		return (KindListener) (key, name, backend, kind) -> new CompositeLockTracker(
				all.stream().map((listener) -> listener.acquiring(key, name, backend, kind)).toList());
	}

}
