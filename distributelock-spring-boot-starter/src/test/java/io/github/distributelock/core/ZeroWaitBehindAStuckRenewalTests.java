package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call of this instance whose wait time has passed (a wait of zero, or a wait at the
 * key's local gate that timed out) waits for a release of the key by this instance that
 * is on its way to the store, one round trip. A release that first waits for a renewal of
 * the lock still in flight is not on its way yet: that renewal may be stuck on a store
 * that does not answer for as long as the lease lasts, and such a caller waited that long
 * (here minutes) instead of hearing at once that the key is held.
 */
class ZeroWaitBehindAStuckRenewalTests {

	/**
	 * Far longer than the test: a caller that waits for the stuck renewal waits this
	 * long.
	 */
	private static final Duration WATCHDOG_LEASE = Duration.ofMinutes(5);

	private static final long BOUND_SECONDS = 10;

	private static final String KEY = "stuck-renewal.zero-wait";

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final StuckRenewal backend = new StuckRenewal(this.store);

	private final ManualTicks scheduler = new ManualTicks();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	ZeroWaitBehindAStuckRenewalTests() {
		this.closeables.add(this.scheduler::shutdownNow);
		this.closeables.add(this.threads::shutdownNow);
	}

	@Test
	void aCallPastItsDeadlineDoesNotWaitForAReleaseThatWaitsForAStuckRenewal() throws Exception {
		DefaultDistributeLock lock = this.closeables.add(
				new DefaultDistributeLock(this.backend, WATCHDOG_LEASE, false, LockEventListener.NONE, this.scheduler));
		// Before the lock is closed, however the test ends.
		this.closeables.add(() -> this.backend.answer.complete(true));
		LockHandle held = lock.tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
		this.scheduler.tick();
		assertThat(this.backend.renewalSent.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("a renewal sent").isTrue();
		CompletableFuture<Void> releasing = held.releaseAsync();
		assertThat(releasing).as("the release, waiting for the renewal").isNotDone();

		CompletableFuture<Optional<LockHandle>> zeroWait = lock.tryAcquireAsync(LockRequest.of(KEY));
		assertThat(zeroWait).as("a non-blocking call with a wait of 0")
			.succeedsWithin(Duration.ofSeconds(BOUND_SECONDS))
			.isEqualTo(Optional.empty());
		Future<Optional<LockHandle>> gateTimedOut = this.threads
			.submit(() -> lock.tryAcquire(KEY, Duration.ofMillis(50), null));
		assertThat(gateTimedOut.get(BOUND_SECONDS, TimeUnit.SECONDS)).as("a blocking call whose gate wait timed out")
			.isEmpty();
		assertThat(this.store.isLocked(KEY)).as("the lock, still in the store").isTrue();

		this.backend.answer.complete(true);
		releasing.get(BOUND_SECONDS, TimeUnit.SECONDS);
		assertThat(this.store.isLocked(KEY)).as("the lock, released in the store").isFalse();
		assertThat(lock.tryAcquire(KEY, Duration.ZERO, null)).as("the key, free again")
			.hasValueSatisfying(LockHandle::close);
	}

}
