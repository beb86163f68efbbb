package io.github.distributelock;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Consumer;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test started (servers, clients, locks, processes), closed in the reverse order
 * however the test ended: every close is attempted, and the first failure is thrown with
 * the later ones suppressed, so one failing close leaves nothing else running. Registered
 * as an extension, it closes after each test: <pre class="code">
 * &#64;RegisterExtension
 * final Closeables closeables = new Closeables();
 * </pre>
 */
public final class Closeables implements AutoCloseable, AfterEachCallback {

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
	public void afterEach(ExtensionContext context) throws Exception {
		close();
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

	/**
	 * Runs {@code start} on {@code resource} and returns the resource, or closes it if
	 * the start fails, so that a half-started fixture leaves nothing running.
	 * @param resource what to start
	 * @param start how to start it
	 * @param <T> its type
	 * @return {@code resource}, started
	 */
	public static <T extends AutoCloseable> T startOrClose(T resource, Consumer<? super T> start) {
		try {
			start.accept(resource);
			return resource;
		}
		catch (RuntimeException | Error ex) {
			try {
				resource.close();
			}
			catch (Exception closeFailure) {
				ex.addSuppressed(closeFailure);
			}
			throw ex;
		}
	}

}
