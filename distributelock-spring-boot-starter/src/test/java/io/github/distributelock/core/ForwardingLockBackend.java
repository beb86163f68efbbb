package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A backend that passes every call to another, for tests that change or record some of
 * them: each overrides only the calls it is about.
 */
public abstract class ForwardingLockBackend implements LockBackend {

	protected final LockBackend delegate;

	protected ForwardingLockBackend(LockBackend delegate) {
		this.delegate = delegate;
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		return this.delegate.tryAcquire(claim, lease);
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		return this.delegate.renew(claim, lease);
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		return this.delegate.release(claim);
	}

	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		return this.delegate.awaitRelease(claim, lastAttempt, deadline);
	}

}
