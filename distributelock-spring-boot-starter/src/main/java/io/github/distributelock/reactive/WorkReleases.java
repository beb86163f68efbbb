package io.github.distributelock.reactive;

import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * The releases of the reactive adapter, none of which blocks, and what becomes of their
 * failures: a loss found at the release is the subscriber's to hear, anything else the
 * engine's to retry, logged with the key.
 */
final class WorkReleases {

	/**
	 * The category the adapter has always logged these lines in (docs/observability.md).
	 */
	private static final Log logger = LogFactory.getLog(DefaultReactiveDistributeLock.class);

	private WorkReleases() {
	}

	/**
	 * Releases a lock taken for a subscription that was cancelled before it got it,
	 * without blocking; a failure is the engine's to retry, and is logged with the key.
	 */
	static void releaseAbandoned(LockHandle handle) {
		handle.releaseAsync().whenComplete((released, failure) -> {
			if (failure != null) {
				logger.warn("Could not release lock '" + handle.key()
						+ "', taken for a subscription cancelled before it got it", failure);
			}
		});
	}

	/**
	 * Releases without blocking once the work has ended. A loss found at the release
	 * ({@code distributelock.throw-on-lost}) is the subscriber's to hear, as a blocking
	 * {@code close()} throws it: it ends a work that completed with that error, and rides
	 * along with the work's own error, suppressed, so that it does not hide why the work
	 * failed. Any other failure is the engine's to retry, and is not the work's result.
	 */
	static Mono<Void> releaseAfterWork(LockHandle handle, @Nullable Throwable workFailure,
			AtomicReference<@Nullable LockLostException> lostAtRelease) {
		return Mono.fromFuture(handle::releaseAsync).onErrorResume((failure) -> {
			Throwable cause = Exceptions.unwrap(failure);
			if (cause instanceof CompletionException && cause.getCause() != null) {
				cause = cause.getCause();
			}
			if (!(cause instanceof LockLostException lost)) {
				logger.warn("Could not release lock '" + handle.key() + "' after the work under it ended", failure);
				return Mono.empty();
			}
			if (workFailure == null) {
				lostAtRelease.set(lost);
				return Mono.error(lost);
			}
			workFailure.addSuppressed(lost);
			return Mono.empty();
		});
	}

	/**
	 * The loss found at the release as the subscriber hears it: Reactor reports a cleanup
	 * that failed after the work completed in an exception of its own, around it.
	 */
	static Throwable lossAtRelease(Throwable failure, AtomicReference<@Nullable LockLostException> lost) {
		LockLostException known = lost.get();
		return (known != null && failure != known && failure.getCause() == known) ? known : failure;
	}

	/**
	 * Releases without blocking; a failure is the engine's to retry, and is not the
	 * work's result.
	 */
	static Mono<Void> release(LockHandle handle) {
		return Mono.fromFuture(handle::releaseAsync).onErrorResume((failure) -> {
			logger.warn("Could not release lock '" + handle.key() + "' after the work under it ended", failure);
			return Mono.empty();
		});
	}

}
