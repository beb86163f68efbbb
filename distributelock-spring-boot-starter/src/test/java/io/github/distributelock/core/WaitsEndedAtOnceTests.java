package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Non-blocking requests, single and multi-key ({@link MultiKeyBatches}), on a store that
 * answers at once on the thread that asks, as the in-memory store does, and whose waits
 * for a release end at once many times in a row, as a store's wait may when the key was
 * released since the attempt: the request, whose continuations run where the store
 * answers, attempts again in a loop, not in a call nested in the last attempt, which
 * overflowed the stack and left the request neither waiting nor ended.
 */
class WaitsEndedAtOnceTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	/**
	 * Far more waits in a row than a thread's stack holds attempts nested in each other.
	 */
	private static final int WAITS_ENDED_AT_ONCE = 100_000;

	private static final LockRequest BOTH = LockRequest.all(LockRequest.of("a"), LockRequest.of("b"))
		.withWaitTime(WAIT);

	private final MemoryLockBackend store = new MemoryLockBackend();

	@Test
	void aNonBlockingRequestWhoseWaitsEndAtOnceManyTimesInARowTakesTheLockOnceFree() throws Exception {
		EndsWaitsAtOnce backend = new EndsWaitsAtOnce(this.store);
		try (DefaultDistributeLock holder = new DefaultDistributeLock(this.store);
				DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
			LockHandle held = holder.tryAcquire("a", Duration.ZERO, null).orElseThrow();
			CompletableFuture<Optional<LockHandle>> taken = waitingInTheStore(backend,
					lock.tryAcquireAsync(LockRequest.of("a").withWaitTime(WAIT)));
			held.close();
			taken.get(10, TimeUnit.SECONDS).orElseThrow().close();
		}
		assertThat(this.store.isLocked("a")).isFalse();
	}

	@Test
	void aNonBlockingMultiKeyRequestWhoseWaitsEndAtOnceManyTimesInARowTakesTheKeysOnceFree() throws Exception {
		EndsWaitsAtOnce backend = new EndsWaitsAtOnce(this.store);
		try (DefaultDistributeLock holder = new DefaultDistributeLock(this.store);
				DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
			LockHandle heldB = holder.tryAcquire("b", Duration.ZERO, null).orElseThrow();
			CompletableFuture<Optional<LockHandle>> both = waitingInTheStore(backend, lock.tryAcquireAsync(BOTH));
			heldB.close();
			try (LockHandle taken = both.get(10, TimeUnit.SECONDS).orElseThrow()) {
				assertThat(this.store.isLocked("a") && this.store.isLocked("b")).isTrue();
			}
		}
		assertThat(this.store.isLocked("a") || this.store.isLocked("b")).isFalse();
	}

	@Test
	void aNonBlockingMultiKeyRequestWhoseWaitsEndAtOnceManyTimesInARowLeavesNothingOnceCancelled() throws Exception {
		EndsWaitsAtOnce backend = new EndsWaitsAtOnce(this.store);
		try (DefaultDistributeLock holder = new DefaultDistributeLock(this.store);
				DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
			LockHandle heldB = holder.tryAcquire("b", Duration.ZERO, null).orElseThrow();
			CompletableFuture<Optional<LockHandle>> both = waitingInTheStore(backend, lock.tryAcquireAsync(BOTH));
			assertThat(both.cancel(false)).isTrue();
			heldB.close();
			// The cancelled request let go of the keys' gates in this instance too.
			lock.tryAcquire(BOTH.withWaitTime(Duration.ZERO)).orElseThrow().close();
		}
		assertThat(this.store.isLocked("a") || this.store.isLocked("b")).isFalse();
	}

	private static CompletableFuture<Optional<LockHandle>> waitingInTheStore(EndsWaitsAtOnce backend,
			CompletableFuture<Optional<LockHandle>> call) throws InterruptedException {
		assertThat(backend.waiting.await(10, TimeUnit.SECONDS)).as("waits in the store after the waits ended").isTrue();
		return call;
	}

	/**
	 * Ends the first {@link #WAITS_ENDED_AT_ONCE} waits for a release at once, then waits
	 * in the store.
	 */
	private static final class EndsWaitsAtOnce extends CountingLockBackend {

		private final AtomicInteger endedAtOnce = new AtomicInteger();

		EndsWaitsAtOnce(MemoryLockBackend store) {
			super(store);
		}

		@Override
		public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
			if (this.endedAtOnce.incrementAndGet() <= WAITS_ENDED_AT_ONCE) {
				return CompletableFuture.completedFuture(null);
			}
			return super.awaitRelease(claim, lastAttempt, deadline);
		}

	}

}
