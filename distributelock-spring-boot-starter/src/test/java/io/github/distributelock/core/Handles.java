package io.github.distributelock.core;

import java.util.ArrayDeque;
import java.util.Deque;

import org.jspecify.annotations.Nullable;

/**
 * The handles of a {@link LockOperations lock scenario} or of its {@link SequentialLocks
 * specification}: per thread and key, the open ones, the last taken first, and the one
 * closed last.
 */
final class Handles<H> {

	private final Deque<H>[][] open;

	private final H[][] closed;

	@SuppressWarnings("unchecked")
	Handles(int threads, int keys) {
		this.open = new Deque[threads][keys];
		this.closed = (H[][]) new Object[threads][keys];
	}

	void push(int thread, int key, H handle) {
		if (this.open[thread][key] == null) {
			this.open[thread][key] = new ArrayDeque<>();
		}
		this.open[thread][key].push(handle);
	}

	@Nullable H peek(int thread, int key) {
		Deque<H> handles = this.open[thread][key];
		return (handles != null) ? handles.peek() : null;
	}

	/** Takes the open handle taken last, which is then the one closed last. */
	@Nullable H pop(int thread, int key) {
		Deque<H> handles = this.open[thread][key];
		H handle = (handles != null) ? handles.poll() : null;
		if (handle != null) {
			this.closed[thread][key] = handle;
		}
		return handle;
	}

	@Nullable H lastClosed(int thread, int key) {
		return this.closed[thread][key];
	}

}
