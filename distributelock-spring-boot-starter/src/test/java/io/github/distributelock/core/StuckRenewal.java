package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;

/**
 * A store whose first renewal is answered only once {@link #answer} completes, as a
 * renewal on a store that stopped answering is.
 */
final class StuckRenewal extends ForwardingLockBackend {

	final CountDownLatch renewalSent = new CountDownLatch(1);

	final CompletableFuture<Boolean> answer = new CompletableFuture<>();

	StuckRenewal(LockBackend delegate) {
		super(delegate);
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		if (this.renewalSent.getCount() == 0) {
			return this.delegate.renew(claim, lease);
		}
		this.renewalSent.countDown();
		return this.answer.thenCompose((go) -> this.delegate.renew(claim, lease));
	}

}
