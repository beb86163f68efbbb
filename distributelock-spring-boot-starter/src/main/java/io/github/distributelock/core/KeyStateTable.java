package io.github.distributelock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * The keys this JVM holds or waits for. An entry lives only while it has users, so the
 * table does not grow with the number of distinct keys ever locked.
 */
final class KeyStateTable {

	private final ConcurrentHashMap<String, KeyState> states = new ConcurrentHashMap<>();

	KeyState enter(String key) {
		return this.states.compute(key, (k, state) -> {
			KeyState entered = (state != null) ? state : new KeyState(k);
			entered.users++;
			return entered;
		});
	}

	void leave(KeyState state) {
		this.states.computeIfPresent(state.key, (k, current) -> {
			if (current != state) {
				return current;
			}
			current.users--;
			return (current.users == 0) ? null : current;
		});
	}

	@Nullable KeyState peek(String key) {
		return this.states.get(key);
	}

	List<HeldLock> heldLocks() {
		List<HeldLock> held = new ArrayList<>();
		for (KeyState state : this.states.values()) {
			HeldLock lock = state.held;
			if (lock != null) {
				held.add(lock);
			}
		}
		return held;
	}

	int size() {
		return this.states.size();
	}

}
