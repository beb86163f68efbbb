package io.github.distributelock.core;

import java.util.concurrent.Semaphore;

import org.jspecify.annotations.Nullable;

/**
 * What this JVM knows of one key while any thread holds or waits for it.
 * <p>
 * Threads of one JVM queue on a local fair gate, so only the head of the queue competes
 * at the store: local contention costs no store round trips, and the hand-off between
 * local threads needs no notification from the store.
 */
final class KeyState {

	final String key;

	final Semaphore gate = new Semaphore(1, true);

	/** Holders and waiters; guarded by the table's per-key compute. */
	int users;

	volatile @Nullable HeldLock held;

	KeyState(String key) {
		this.key = key;
	}

}
