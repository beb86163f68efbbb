package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A renewal can reach the store in time and its answer come back after the lease ran out
 * here, when the lock was already reported lost. The store then keeps, for a whole lease,
 * a lock that nobody holds: it must be released there, not left to block other instances
 * until the lost handle is closed.
 */
class LateRenewalTests {

	private static final Duration WATCHDOG_LEASE = Duration.ofMillis(300);

	/**
	 * How long the store keeps the lock after the late renewal: far past any bound here.
	 */
	private static final Duration STORE_LEASE = Duration.ofMinutes(1);

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final LateAnswer backend = new LateAnswer(this.store);

	private final DefaultDistributeLock holder = this.closeables
		.add(new DefaultDistributeLock(this.backend, WATCHDOG_LEASE, false, LockEventListener.NONE, null));

	private final DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.store));

	@Test
	void aRenewalConfirmedAfterTheLossIsReleasedInTheStore() throws Exception {
		LockHandle handle = this.holder.tryAcquire("late-renewal", Duration.ZERO, null).orElseThrow();
		CountDownLatch lost = new CountDownLatch(1);
		handle.onLost((ended) -> lost.countDown());
		assertThat(this.backend.renewalSent.await(BOUND.toSeconds(), TimeUnit.SECONDS)).as("a renewal sent").isTrue();
		assertThat(lost.await(BOUND.toSeconds(), TimeUnit.SECONDS)).as("the lock reported lost").isTrue();
		assertThat(this.store.isLocked("late-renewal")).as("the lock, renewed in the store").isTrue();

		this.backend.answer.complete(null);

		await().atMost(BOUND).until(() -> !this.store.isLocked("late-renewal"));
		assertThat(this.other.tryAcquire("late-renewal", Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
		assertThat(handle.isHeld()).isFalse();
		handle.close();
	}

	/**
	 * Sends the first renewal to the store at once, with a long lease there, and holds
	 * its answer back until the test lets it through.
	 */
	private static final class LateAnswer extends ForwardingLockBackend {

		private final AtomicBoolean first = new AtomicBoolean();

		final CountDownLatch renewalSent = new CountDownLatch(1);

		final CompletableFuture<Void> answer = new CompletableFuture<>();

		LateAnswer(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
			if (!this.first.compareAndSet(false, true)) {
				return super.renew(claim, lease);
			}
			CompletionStage<Boolean> renewed = this.delegate.renew(claim, STORE_LEASE);
			this.renewalSent.countDown();
			return renewed.thenCombine(this.answer, (held, answered) -> held);
		}

	}

}
