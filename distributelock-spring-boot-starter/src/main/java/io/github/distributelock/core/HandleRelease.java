package io.github.distributelock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The one release of a handle: the call that closes the handle first sends it, and every
 * later call gets its outcome, which completes only once that release has ended (it may
 * still be on its way to the store), so that each caller may count on the lock being
 * gone.
 */
final class HandleRelease {

	private final AtomicReference<@Nullable CompletableFuture<@Nullable Void>> outcome = new AtomicReference<>();

	/** Whether a call has closed the handle. */
	boolean closed() {
		return this.outcome.get() != null;
	}

	/**
	 * Closes the handle, if no call did before, with the future to complete with the
	 * outcome of its release (see {@link #endsWith}).
	 * @return {@code null} if this call closed the handle; else a copy of the outcome of
	 * the release of the call that did, which the caller may cancel without touching it
	 */
	@Nullable CompletableFuture<@Nullable Void> closeOnce(CompletableFuture<@Nullable Void> outcome) {
		CompletableFuture<@Nullable Void> earlier = this.outcome.compareAndExchange(null, outcome);
		return (earlier != null) ? earlier.copy() : null;
	}

	/**
	 * Completes {@code outcome} as {@code release} completes, and returns the release.
	 */
	static <T> CompletableFuture<T> endsWith(CompletableFuture<T> release, CompletableFuture<@Nullable Void> outcome) {
		release.whenComplete((released, failure) -> {
			if (failure != null) {
				outcome.completeExceptionally(failure);
			}
			else {
				outcome.complete(null);
			}
		});
		return release;
	}

}
