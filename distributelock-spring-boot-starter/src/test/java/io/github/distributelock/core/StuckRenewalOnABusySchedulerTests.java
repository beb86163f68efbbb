package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A blocking {@code close()} waits for a renewal of its lock that is still on its way, so
 * that the renewal cannot reach the store after the release; a renewal stuck on a store
 * that does not answer is waited for until the lease runs out at most. The lock service's
 * scheduler timed that end alone: while it was busy (its threads run the stages of
 * non-blocking calls, which may block, and a scheduler the application gives may be busy
 * with other work), {@code close()} waited until it was free, with no bound. The closing
 * thread now ends the wait itself.
 */
class StuckRenewalOnABusySchedulerTests {

	private static final Duration WATCHDOG_LEASE = Duration.ofMillis(300);

	/** Far longer than the lease: a close that reaches it waited for the scheduler. */
	private static final long BOUND_SECONDS = 5;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final StuckRenewal backend = new StuckRenewal(this.store);

	private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);

	private final CountDownLatch freed = new CountDownLatch(1);

	@Test
	void aBlockingCloseWaitsForAStuckRenewalUntilTheLeaseEndsWhileTheSchedulerIsBusy() throws Exception {
		this.closeables.add(this.scheduler::shutdownNow);
		DefaultDistributeLock lock = this.closeables.add(
				new DefaultDistributeLock(this.backend, WATCHDOG_LEASE, false, LockEventListener.NONE, this.scheduler));
		LockHandle handle = lock.tryAcquire("stuck-renewal", Duration.ZERO, null).orElseThrow();
		assertThat(this.backend.renewalSent.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("a renewal sent").isTrue();
		occupyScheduler();
		try {
			CompletableFuture.runAsync(handle::close).get(BOUND_SECONDS, TimeUnit.SECONDS);
			assertThat(this.store.isLocked("stuck-renewal")).as("the lock, released in the store").isFalse();
		}
		finally {
			this.freed.countDown();
		}
	}

	/**
	 * The close of a multi-key handle releases its keys together, each waiting for its
	 * own stuck renewal: the closing thread must end every one of these waits, not only
	 * the last one set.
	 */
	@Test
	void aBlockingCloseOfSeveralKeysWaitsForEachStuckRenewalUntilItsLeaseEndsWhileTheSchedulerIsBusy()
			throws Exception {
		StuckRenewals backend = new StuckRenewals(this.store, 2);
		this.closeables.add(this.scheduler::shutdownNow);
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(backend, WATCHDOG_LEASE, false, LockEventListener.NONE, this.scheduler));
		LockHandle handle = lock
			.tryAcquire(LockRequest.all(LockRequest.of("stuck-renewal.a"), LockRequest.of("stuck-renewal.b")))
			.orElseThrow();
		assertThat(backend.renewalsSent.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("a renewal of each key sent")
			.isTrue();
		occupyScheduler();
		try {
			CompletableFuture.runAsync(handle::close).get(BOUND_SECONDS, TimeUnit.SECONDS);
			assertThat(this.store.isLocked("stuck-renewal.a")).as("key a, released in the store").isFalse();
			assertThat(this.store.isLocked("stuck-renewal.b")).as("key b, released in the store").isFalse();
		}
		finally {
			this.freed.countDown();
		}
	}

	private void occupyScheduler() throws InterruptedException {
		CountDownLatch busy = new CountDownLatch(1);
		this.scheduler.execute(() -> {
			busy.countDown();
			try {
				this.freed.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		assertThat(busy.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("scheduler busy").isTrue();
	}

	/** A store that takes several keys in one call, and whose renewals never answer. */
	private static final class StuckRenewals extends ForwardingMultiKeyLockBackend {

		final CountDownLatch renewalsSent;

		StuckRenewals(MemoryLockBackend memory, int keys) {
			super(memory);
			this.renewalsSent = new CountDownLatch(keys);
		}

		@Override
		public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
			this.renewalsSent.countDown();
			return new CompletableFuture<>();
		}

	}

	/** A store whose first renewal never answers. */
	private static final class StuckRenewal extends ForwardingLockBackend {

		final CountDownLatch renewalSent = new CountDownLatch(1);

		StuckRenewal(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
			this.renewalSent.countDown();
			return new CompletableFuture<>();
		}

	}

}
