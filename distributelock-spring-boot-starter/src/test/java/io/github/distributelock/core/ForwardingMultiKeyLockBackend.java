package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A {@link ForwardingLockBackend} over an in-memory store that forwards its calls for
 * several keys at once too, so that a test holding back a single-key call keeps the
 * store's batches. Attempts and releases, of one key or several, pass through
 * {@link #sendAttempt} and {@link #sendRelease}, so that a test can fail or hold back
 * both kinds in one place.
 */
public abstract class ForwardingMultiKeyLockBackend extends ForwardingLockBackend implements MultiKeyLockBackend {

	private final MemoryLockBackend memory;

	protected ForwardingMultiKeyLockBackend(MemoryLockBackend memory) {
		super(memory);
		this.memory = memory;
	}

	/** Sends an attempt, of one key or several, to the store. */
	protected <T> CompletionStage<T> sendAttempt(Supplier<CompletionStage<T>> attempt) {
		return attempt.get();
	}

	/** Sends a release, of one key or several, to the store. */
	protected <T> CompletionStage<T> sendRelease(Supplier<CompletionStage<T>> release) {
		return release.get();
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		return sendAttempt(() -> this.delegate.tryAcquire(claim, lease));
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		return sendRelease(() -> this.delegate.release(claim));
	}

	@Override
	public boolean batches(List<Claim> claims) {
		return this.memory.batches(claims);
	}

	@Override
	public CompletionStage<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases) {
		return sendAttempt(() -> this.memory.tryAcquireAll(claims, leases));
	}

	@Override
	public CompletionStage<List<Boolean>> releaseAll(List<Claim> claims) {
		return sendRelease(() -> this.memory.releaseAll(claims));
	}

}
