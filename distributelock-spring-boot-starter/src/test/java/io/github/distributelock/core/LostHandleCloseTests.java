package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closing a handle whose lock was lost sends nothing to the store: the store no longer
 * holds that lock, and a release, checked by owner only, would end a lock taken since
 * with the same owner value.
 */
class LostHandleCloseTests {

	private static final Duration FIXED_LEASE = Duration.ofMillis(200);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));

	@Test
	void closingALostHandleLeavesTheLockTakenSinceWithTheSameOwnerValue() throws Exception {
		LockRequest request = LockRequest.of("lost-handle").withOwner("order-42").withLeaseTime(FIXED_LEASE);
		LockHandle lost = this.lock.tryAcquire(request).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isHeld());
		// The handle counts its lease from before its attempt was sent, so it may learn
		// of
		// the loss just before the store lets the lease go: the new claim waits for that.
		LockRequest again = request.withLeaseTime(Duration.ofMinutes(1)).withWaitTime(Duration.ofSeconds(10));
		try (LockHandle taken = this.lock.tryAcquire(again).orElseThrow()) {
			lost.close();
			assertThat(this.store.isLocked("lost-handle")).as("the lock taken since, in the store").isTrue();
			assertThat(taken.isHeld()).isTrue();
		}
		assertThat(this.store.isLocked("lost-handle")).isFalse();
	}

	/**
	 * The claim taken again with the same owner value is on its way back from the store
	 * (the store took it, its answer has not come) when the lost handle is closed: a
	 * release sent then ends the lock the store just gave that claim.
	 */
	@Test
	void closingALostHandleLeavesTheLockThatAClaimOfTheSameOwnerValueIsTakingMeanwhile() throws Exception {
		CountDownLatch applied = new CountDownLatch(1);
		CompletableFuture<Void> answer = new CompletableFuture<>();
		AtomicBoolean holdBack = new AtomicBoolean();
		ForwardingLockBackend backend = new ForwardingLockBackend(this.store) {

			@Override
			public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
				CompletionStage<AcquireResult> attempt = this.delegate.tryAcquire(claim, lease);
				if (!holdBack.compareAndSet(true, false)) {
					return attempt;
				}
				applied.countDown();
				return attempt.thenCombine(answer, (result, go) -> result);
			}

		};
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend));
		ExecutorService caller = Executors.newSingleThreadExecutor();
		this.closeables.add(caller::shutdownNow);
		LockRequest request = LockRequest.of("lost-handle.taking").withOwner("order-43").withLeaseTime(FIXED_LEASE);
		LockHandle lost = lock.tryAcquire(request).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> !lost.isHeld());
		holdBack.set(true);
		Future<Optional<LockHandle>> taking = caller.submit(() -> lock
			.tryAcquire(request.withLeaseTime(Duration.ofMinutes(1)).withWaitTime(Duration.ofSeconds(10))));
		assertThat(applied.await(10, TimeUnit.SECONDS)).isTrue();
		lost.releaseAsync().join();
		answer.complete(null);
		try (LockHandle taken = taking.get(10, TimeUnit.SECONDS).orElseThrow()) {
			await().atMost(Duration.ofSeconds(10)).until(() -> lock.heldLocks().size() == 1);
			assertThat(this.store.isLocked("lost-handle.taking")).as("the lock taken since, in the store").isTrue();
			assertThat(taken.isHeld()).isTrue();
		}
		assertThat(this.store.isLocked("lost-handle.taking")).isFalse();
	}

}
