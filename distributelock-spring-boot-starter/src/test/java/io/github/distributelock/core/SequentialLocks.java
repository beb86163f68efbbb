package io.github.distributelock.core;

import io.github.distributelock.core.LockOperations.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * The sequential specification of the {@link LockOperations lock scenarios}: one holder
 * per key at a time; the thread that took a key through the blocking API re-enters it,
 * one hold per entry, and nobody else does (a lock taken through the non-blocking API is
 * not re-entered); the last hold released frees the key; a closed handle stays closed; a
 * shut down lock service holds nothing and takes nothing.
 */
public final class SequentialLocks {

	private final Taken[] taken = new Taken[LockOperations.KEYS];

	private final Handles<Taken> handles = new Handles<>(LockOperations.THREADS + 2, LockOperations.KEYS);

	private boolean shutDown;

	public Outcome acquire(int thread, int key) {
		return take(thread, key, thread);
	}

	public Outcome acquireAsync(int thread, int key) {
		return take(thread, key, -1);
	}

	private Outcome take(int thread, int key, int reentrantBy) {
		Taken current = this.taken[key];
		if (this.shutDown || (current != null && (reentrantBy < 0 || current.reentrantBy != reentrantBy))) {
			return Outcome.NOT_ACQUIRED;
		}
		if (current == null) {
			current = new Taken(key, reentrantBy);
			this.taken[key] = current;
		}
		current.holds++;
		this.handles.push(thread, key, current);
		return Outcome.ACQUIRED;
	}

	public boolean release(int thread, int key) {
		Taken lock = this.handles.pop(thread, key);
		if (lock != null && !lock.released && --lock.holds == 0) {
			free(lock);
		}
		return lock != null;
	}

	public boolean releaseAsync(int thread, int key) {
		return release(thread, key);
	}

	public boolean closeAgain(int thread, int key) {
		return this.handles.lastClosed(thread, key) != null;
	}

	public @Nullable Boolean isHeld(int thread, int key) {
		Taken lock = this.handles.peek(thread, key);
		return (lock != null) ? !lock.released : null;
	}

	public void shutdown() {
		this.shutDown = true;
		for (Taken lock : this.taken) {
			if (lock != null) {
				free(lock);
			}
		}
	}

	private void free(Taken lock) {
		lock.released = true;
		this.taken[lock.key] = null;
	}

	/** One acquisition, shared by the handles of its entries. */
	private static final class Taken {

		final int key;

		final int reentrantBy;

		int holds;

		boolean released;

		Taken(int key, int reentrantBy) {
			this.key = key;
			this.reentrantBy = reentrantBy;
		}

	}

}
