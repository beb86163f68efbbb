package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Passes every call to a real backend and counts them, so tests can see what the engine
 * asked of the store.
 */
public class CountingLockBackend implements LockBackend {

	private final LockBackend delegate;

	public final AtomicInteger acquireAttempts = new AtomicInteger();

	public final AtomicInteger renewals = new AtomicInteger();

	public final AtomicInteger releases = new AtomicInteger();

	public final CountDownLatch waiting = new CountDownLatch(1);

	public CountingLockBackend(LockBackend delegate) {
		this.delegate = delegate;
	}

	@Override
	public String name() {
		return this.delegate.name();
	}

	@Override
	public AcquireResult tryAcquire(String key, String owner, Duration lease) {
		this.acquireAttempts.incrementAndGet();
		return this.delegate.tryAcquire(key, owner, lease);
	}

	@Override
	public boolean renew(String key, String owner, Duration lease) {
		this.renewals.incrementAndGet();
		return this.delegate.renew(key, owner, lease);
	}

	@Override
	public boolean release(String key, String owner) {
		this.releases.incrementAndGet();
		return this.delegate.release(key, owner);
	}

	@Override
	public void awaitRelease(String key, Duration maxWait) throws InterruptedException {
		this.waiting.countDown();
		this.delegate.awaitRelease(key, maxWait);
	}

	@Override
	public boolean leasesExpire() {
		return this.delegate.leasesExpire();
	}

	@Override
	public void addLossListener(LockLossListener listener) {
		this.delegate.addLossListener(listener);
	}

	@Override
	public void removeLossListener(LockLossListener listener) {
		this.delegate.removeLossListener(listener);
	}

}
