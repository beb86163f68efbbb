package io.github.distributelock.benchmarks.ours;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend;

/**
 * A {@link LockBackend} in this JVM's memory, so that a benchmark on it measures only our
 * engine and the {@code @Lockable} interceptor, with no store round trip to hide their
 * cost. Its leases expire, so the engine schedules its watchdog as it does for Redis.
 */
public final class MemoryLockBackend implements LockBackend {

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

	/** No notification: the waiter tries again a millisecond later. */
	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		return CompletableFuture.runAsync(() -> {
		}, CompletableFuture.delayedExecutor(Math.min(1_000_000, deadline.remainingNanos()), TimeUnit.NANOSECONDS));
	}

}
