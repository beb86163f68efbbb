package io.github.distributelock.core;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A {@link LockTracker} must not throw, but one of an application's listeners may: the
 * watchdog then goes on keeping the other locks, and the handle's own lost-lock listeners
 * are still told; a listener that throws as a call starts fails that call, which leaves
 * nothing entered or re-entered behind.
 */
class ThrowingTrackerTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend memory = new MemoryLockBackend();

	private final LockEventListener throwingForM = (key, name, backend) -> {
		if (key.equals("throwing.m")) {
			throw new IllegalStateException("an application's listener failed");
		}
		return LockTracker.NONE;
	};

	@Test
	void aListenerThatThrowsForOneKeyOfABatchedRequestLeavesNoReentrantHoldBehind() throws Exception {
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(this.memory, Duration.ofSeconds(30), false, this.throwingForM, null));
		LockHandle k = lock.tryAcquire("throwing.k", Duration.ZERO, null).orElseThrow();
		assertThatIllegalStateException()
			.isThrownBy(
					() -> lock.tryAcquire(LockRequest.all(LockRequest.of("throwing.k"), LockRequest.of("throwing.m"))))
			.withMessage("an application's listener failed");
		k.close();
		assertThat(lock.heldLocks()).as("locks still held after the only handle was closed").isEmpty();
		assertThat(this.memory.isLocked("throwing.k")).isFalse();
	}

	@Test
	void aListenerThatThrowsForOneKeyOfANonBlockingBatchedRequestFailsItsFuture() throws Exception {
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(this.memory, Duration.ofSeconds(30), false, this.throwingForM, null));
		CompletableFuture<Optional<LockHandle>> both = lock.tryAcquireAsync(LockRequest
			.all(LockRequest.of("throwing.k"), LockRequest.of("throwing.n"), LockRequest.of("throwing.m")));
		assertThat(both).failsWithin(BOUND)
			.withThrowableThat()
			.havingRootCause()
			.withMessage("an application's listener failed");
		try (LockHandle again = lock
			.tryAcquire(LockRequest.all(LockRequest.of("throwing.k"), LockRequest.of("throwing.n")))
			.orElseThrow()) {
			assertThat(again.isHeld()).as("the keys' entries were left").isTrue();
		}
		assertThat(lock.heldLocks()).isEmpty();
	}

	@Test
	void aTrackerThatThrowsAtALossStopsNeitherTheWatchdogNorTheLostListeners() throws Exception {
		StuckRenewals store = new StuckRenewals(new MemoryLockBackend(), "tracker.stuck");
		LockEventListener throwing = (key, name, backend) -> new LockTracker() {
			@Override
			public void lost(String reason) {
				throw new IllegalStateException("a listener of the application failed");
			}
		};
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(store, Duration.ofMillis(300), false, throwing, null));
		LockHandle kept = lock.tryAcquire("tracker.kept", Duration.ZERO, null).orElseThrow();
		LockHandle stuck = lock.tryAcquire("tracker.stuck", Duration.ZERO, null).orElseThrow();
		CountDownLatch told = new CountDownLatch(1);
		stuck.onLost((handle) -> told.countDown());
		// The renewal of tracker.stuck never answers: its lease runs out on a tick.
		assertThat(told.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
		int renewalsAtTheLoss = store.renewals("tracker.kept");
		await().atMost(BOUND).until(() -> store.renewals("tracker.kept") >= renewalsAtTheLoss + 3);
		assertThat(kept.isHeld()).isTrue();
		kept.close();
	}

	/** Never answers the renewals of one key. */
	private static final class StuckRenewals extends ForwardingLockBackend {

		private final String stuckKey;

		private final Map<String, AtomicInteger> renewals = new ConcurrentHashMap<>();

		StuckRenewals(LockBackend delegate, String stuckKey) {
			super(delegate);
			this.stuckKey = stuckKey;
		}

		int renewals(String key) {
			return this.renewals.computeIfAbsent(key, (any) -> new AtomicInteger()).get();
		}

		@Override
		public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
			this.renewals.computeIfAbsent(claim.key(), (any) -> new AtomicInteger()).incrementAndGet();
			return claim.key().equals(this.stuckKey) ? new CompletableFuture<>() : this.delegate.renew(claim, lease);
		}

	}

}
