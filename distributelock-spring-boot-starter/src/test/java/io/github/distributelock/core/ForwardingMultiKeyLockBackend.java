package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A {@link ForwardingLockBackend} over an in-memory store that forwards its calls for
 * several keys at once too, so that a test holding back a single-key call keeps the
 * store's batches.
 */
public abstract class ForwardingMultiKeyLockBackend extends ForwardingLockBackend implements MultiKeyLockBackend {

	private final MemoryLockBackend memory;

	protected ForwardingMultiKeyLockBackend(MemoryLockBackend memory) {
		super(memory);
		this.memory = memory;
	}

	@Override
	public boolean batches(List<Claim> claims) {
		return this.memory.batches(claims);
	}

	@Override
	public CompletionStage<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases) {
		return this.memory.tryAcquireAll(claims, leases);
	}

	@Override
	public CompletionStage<List<Boolean>> releaseAll(List<Claim> claims) {
		return this.memory.releaseAll(claims);
	}

}
