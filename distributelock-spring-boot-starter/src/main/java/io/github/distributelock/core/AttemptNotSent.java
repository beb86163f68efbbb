package io.github.distributelock.core;

import java.util.concurrent.CompletableFuture;

/**
 * Why an attempt was not sent: its caller's deadline came while it waited for releases of
 * its key and owner that must reach the store first ({@link StoreCalls}). The store did
 * not answer them in time, so the call ends as an attempt that failed at its deadline
 * does. Only the engine sees it; the caller gets a {@code DistributeLockException}.
 */
final class AttemptNotSent extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final transient CompletableFuture<Void> releasesAnswered;

	AttemptNotSent(CompletableFuture<Void> releasesAnswered) {
		super("a release of its owner's lock, which must reach the store before the attempt, was not answered "
				+ "by the caller's deadline");
		this.releasesAnswered = releasesAnswered;
	}

	/**
	 * Completes once the store has answered the releases, never exceptionally; those that
	 * failed are then retried in the background again.
	 */
	CompletableFuture<Void> releasesAnswered() {
		return this.releasesAnswered;
	}

}
