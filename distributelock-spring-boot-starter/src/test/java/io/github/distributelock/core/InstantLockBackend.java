package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * A {@link LockBackend} in this JVM's memory, for tests of the engine alone: every call
 * completes at once, on the calling thread, so that a test controls every thread the
 * engine runs on. It behaves like the benchmarks' {@code MemoryLockBackend}: leases are
 * accepted and never expire, and a waiter is told to attempt again a millisecond later.
 * Exclusive locks only, on one concurrent map, so that a model checker explores the
 * engine's interleavings rather than this store's: the kinds have
 * {@link MemoryLockBackend}.
 */
final class InstantLockBackend implements LockBackend {

	private final ConcurrentHashMap<String, String> owners = new ConcurrentHashMap<>();

	private final AtomicLong tokens = new AtomicLong();

	@Override
	public String name() {
		return "memory";
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		if (this.owners.putIfAbsent(claim.key(), claim.owner()) == null) {
			return CompletableFuture.completedFuture(AcquireResult.acquired(this.tokens.incrementAndGet()));
		}
		return CompletableFuture.completedFuture(AcquireResult.heldByAnother(null));
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		return CompletableFuture.completedFuture(claim.owner().equals(this.owners.get(claim.key())));
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		return CompletableFuture.completedFuture(this.owners.remove(claim.key(), claim.owner()));
	}

	/** No notification: the waiter attempts again a millisecond later. */
	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		return CompletableFuture.runAsync(() -> {
		}, CompletableFuture.delayedExecutor(Math.min(1_000_000, deadline.remainingNanos()), TimeUnit.NANOSECONDS));
	}

	/** The owner the store holds {@code key} for, read directly. */
	@Nullable String owner(String key) {
		return this.owners.get(key);
	}

}
