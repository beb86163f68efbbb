package io.github.distributelock;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * What a test started (servers, clients, locks, processes), closed in the reverse order
 * however the test ended: every close is attempted, and the first failure is thrown with
 * the later ones suppressed, so one failing close leaves nothing else running.
 */
public final class Closeables implements AutoCloseable {

	private final Deque<AutoCloseable> open = new ConcurrentLinkedDeque<>();

	/**
	 * Closes {@code closeable} at the next {@link #close()}, before what was added
	 * earlier.
	 * @param closeable what to close
	 * @param <T> its type
	 * @return {@code closeable}
	 */
	public <T extends AutoCloseable> T add(T closeable) {
		this.open.push(closeable);
		return closeable;
	}

	@Override
	public void close() throws Exception {
		Exception failure = null;
		for (AutoCloseable next = this.open.poll(); next != null; next = this.open.poll()) {
			try {
				next.close();
			}
			catch (Exception ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

}
