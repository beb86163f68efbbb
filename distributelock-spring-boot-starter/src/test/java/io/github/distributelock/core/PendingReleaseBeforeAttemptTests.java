package io.github.distributelock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A release retried in the background ({@link ReleaseRetries}) is answered before the
 * engine claims the same key with the same owner again: sent after that claim, the
 * owner-checked release would end the lock the claim took. The store here answers a
 * retried release only once the next claim was applied (or after 500 ms), so a retry sent
 * beside the claim lands after it every time.
 */
class PendingReleaseBeforeAttemptTests {

	private static final long BOUND_SECONDS = 10;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend memory = new MemoryLockBackend();

	/**
	 * The first attempt fails (a command timeout), and so does the release that gives
	 * back what it may have taken; the call's next attempt claims the key with the same
	 * owner.
	 */
	@Test
	void theRetriedGiveBackOfAFailedAttemptIsAnsweredBeforeTheNextAttempt() throws Exception {
		Flaky flaky = failingOnce();
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(flaky));
		LockHandle handle = lock.tryAcquireAsync(LockRequest.of("pending.giveback").withWaitTime(Duration.ofSeconds(5)))
			.get(BOUND_SECONDS, TimeUnit.SECONDS)
			.orElseThrow();
		assertThat(this.memory.isLocked("pending.giveback")).isTrue();
		await().atMost(Duration.ofSeconds(BOUND_SECONDS)).until(() -> flaky.heldBackReleasesDone.get() > 0);
		assertThat(handle.isHeld()).as("the engine still thinks it holds the lock").isTrue();
		DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.memory));
		assertThat(other.tryAcquire("pending.giveback", Duration.ZERO, null))
			.as("another instance must not get a lock this instance holds")
			.isEmpty();
		assertThat(this.memory.isLocked("pending.giveback")).as("the lock is still in the store").isTrue();
	}

	/** The same, for a multi-key request the backend takes in one call. */
	@Test
	void theRetriedGiveBacksOfAFailedBatchAttemptAreAnsweredBeforeTheNextAttempt() throws Exception {
		Flaky flaky = failingOnce();
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(flaky));
		LockRequest both = LockRequest.all(LockRequest.of("pending.batch.a"), LockRequest.of("pending.batch.b"))
			.withWaitTime(Duration.ofSeconds(5));
		LockHandle handle = lock.tryAcquireAsync(both).get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
		assertThat(this.memory.isLocked("pending.batch.a")).isTrue();
		assertThat(this.memory.isLocked("pending.batch.b")).isTrue();
		await().atMost(Duration.ofSeconds(BOUND_SECONDS)).until(() -> flaky.heldBackReleasesDone.get() >= 2);
		assertThat(handle.isHeld()).isTrue();
		assertThat(this.memory.isLocked("pending.batch.a") && this.memory.isLocked("pending.batch.b"))
			.as("both keys are still in the store")
			.isTrue();
	}

	/** A store that fails the first attempt and the release that gives it back. */
	private Flaky failingOnce() {
		Flaky flaky = new Flaky(this.memory);
		flaky.failAttempts.set(1);
		flaky.failReleases.set(1);
		return flaky;
	}

	/**
	 * Two callers of one instance with one owner value they chose: the second passed the
	 * check at its start (nothing was pending then) and waits at the key's gate; the
	 * first's release is applied but its answer lost, so it is retried; then the gate
	 * passes to the second caller.
	 */
	@Test
	void theRetriedReleaseOfAnOwnerValueIsAnsweredBeforeAWaiterAtTheGateClaimsItAgain() throws Exception {
		Flaky flaky = new Flaky(this.memory);
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(flaky));
		LockHandle first = lock.tryAcquire(LockRequest.of("pending.owner").withOwner("X")).orElseThrow();
		CompletableFuture<Optional<LockHandle>> second = lock
			.tryAcquireAsync(LockRequest.of("pending.owner").withOwner("X").withWaitTime(Duration.ofSeconds(5)));
		await().atMost(Duration.ofSeconds(BOUND_SECONDS)).until(() -> lock.waitingAtGate("pending.owner") == 1);
		flaky.applyThenFailReleases.set(1);
		assertThatExceptionOfType(DistributeLockException.class).isThrownBy(first::close);
		LockHandle secondHandle = second.get(BOUND_SECONDS, TimeUnit.SECONDS).orElseThrow();
		assertThat(this.memory.isLocked("pending.owner")).isTrue();
		await().atMost(Duration.ofSeconds(BOUND_SECONDS)).until(() -> flaky.heldBackReleasesDone.get() > 0);
		assertThat(secondHandle.isHeld()).isTrue();
		assertThat(this.memory.isLocked("pending.owner")).as("the second caller's lock is still in the store").isTrue();
	}

	/**
	 * Fails the first attempts and releases as a dropped connection does; the releases
	 * after a failed one (its retries) are applied once an attempt after it was applied,
	 * or after 500 ms.
	 */
	static final class Flaky extends ForwardingLockBackend implements MultiKeyLockBackend {

		private final MemoryLockBackend memory;

		final AtomicInteger failAttempts = new AtomicInteger();

		final AtomicInteger failReleases = new AtomicInteger();

		final AtomicInteger applyThenFailReleases = new AtomicInteger();

		final AtomicInteger heldBackReleasesDone = new AtomicInteger();

		private volatile boolean holdBack;

		final CompletableFuture<Void> go = new CompletableFuture<>();

		Flaky(MemoryLockBackend memory) {
			super(memory);
			this.memory = memory;
		}

		@Override
		public String name() {
			return "flaky";
		}

		private void holdBackRetries() {
			this.holdBack = true;
			this.go.completeOnTimeout(null, 500, TimeUnit.MILLISECONDS);
		}

		private <T> CompletionStage<T> attemptApplied(CompletionStage<T> attempt) {
			if (this.holdBack) {
				return attempt.whenComplete((result, failure) -> this.go.complete(null));
			}
			return attempt;
		}

		private static <T> CompletableFuture<T> failed() {
			return CompletableFuture.failedFuture(new UncheckedIOException(new IOException("command timed out")));
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			if (this.failAttempts.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
				return failed();
			}
			return attemptApplied(this.delegate.tryAcquire(claim, lease));
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			if (this.failReleases.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
				holdBackRetries();
				return failed();
			}
			if (this.applyThenFailReleases.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
				holdBackRetries();
				return this.delegate.release(claim).toCompletableFuture().thenCompose((released) -> failed());
			}
			if (this.holdBack) {
				return this.go.thenCompose((ready) -> this.delegate.release(claim))
					.whenComplete((released, failure) -> this.heldBackReleasesDone.incrementAndGet());
			}
			return this.delegate.release(claim);
		}

		@Override
		public boolean batches(List<Claim> claims) {
			return this.memory.batches(claims);
		}

		@Override
		public CompletionStage<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases) {
			if (this.failAttempts.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
				return failed();
			}
			return attemptApplied(this.memory.tryAcquireAll(claims, leases));
		}

		@Override
		public CompletionStage<List<Boolean>> releaseAll(List<Claim> claims) {
			if (this.failReleases.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
				holdBackRetries();
				return failed();
			}
			return this.memory.releaseAll(claims);
		}

	}

}
