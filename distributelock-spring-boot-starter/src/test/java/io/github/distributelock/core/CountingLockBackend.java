package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Passes every call to a real backend and counts them, so tests can see what the engine
 * asked of the store. Use {@link #of(LockBackend)}, which keeps the capabilities of the
 * backend it wraps: it batches the claims the backend batches
 * ({@link MultiKeyLockBackend}), and no others.
 */
public class CountingLockBackend implements MultiKeyLockBackend, LockStoreProbe {

	private final LockBackend delegate;

	public final AtomicInteger acquireAttempts = new AtomicInteger();

	public final AtomicInteger renewals = new AtomicInteger();

	public final AtomicInteger releases = new AtomicInteger();

	public final AtomicInteger acquireAllAttempts = new AtomicInteger();

	/**
	 * Multi-key attempts whose stage failed: the store failed, or its answer was lost.
	 */
	public final AtomicInteger acquireAllFailures = new AtomicInteger();

	public final AtomicInteger releaseAllCalls = new AtomicInteger();

	public final CountDownLatch waiting = new CountDownLatch(1);

	public CountingLockBackend(LockBackend delegate) {
		this.delegate = delegate;
	}

	/** A counting backend that is a {@link SessionLockBackend} if the delegate is one. */
	public static CountingLockBackend of(LockBackend delegate) {
		return (delegate instanceof SessionLockBackend session) ? new Session(session)
				: new CountingLockBackend(delegate);
	}

	/** Whether the store's locks have leases that the watchdog renews. */
	public boolean leasesExpire() {
		return !(this.delegate instanceof SessionLockBackend);
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		this.acquireAttempts.incrementAndGet();
		return this.delegate.tryAcquire(claim, lease);
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		this.renewals.incrementAndGet();
		return this.delegate.renew(claim, lease);
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		this.releases.incrementAndGet();
		return this.delegate.release(claim);
	}

	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		this.waiting.countDown();
		return this.delegate.awaitRelease(claim, lastAttempt, deadline);
	}

	@Override
	public boolean batches(List<Claim> claims) {
		return this.delegate instanceof MultiKeyLockBackend multiKey && multiKey.batches(claims);
	}

	@Override
	public CompletionStage<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases) {
		this.acquireAllAttempts.incrementAndGet();
		return ((MultiKeyLockBackend) this.delegate).tryAcquireAll(claims, leases).whenComplete((result, failure) -> {
			if (failure != null) {
				this.acquireAllFailures.incrementAndGet();
			}
		});
	}

	@Override
	public CompletionStage<List<Boolean>> releaseAll(List<Claim> claims) {
		this.releaseAllCalls.incrementAndGet();
		return ((MultiKeyLockBackend) this.delegate).releaseAll(claims);
	}

	@Override
	public void probe() {
		((LockStoreProbe) this.delegate).probe();
	}

	private static final class Session extends CountingLockBackend implements SessionLockBackend {

		private final SessionLockBackend session;

		Session(SessionLockBackend session) {
			super(session);
			this.session = session;
		}

		@Override
		public void addLossListener(LockLossListener listener) {
			this.session.addLossListener(listener);
		}

		@Override
		public void removeLossListener(LockLossListener listener) {
			this.session.removeLossListener(listener);
		}

	}

}
