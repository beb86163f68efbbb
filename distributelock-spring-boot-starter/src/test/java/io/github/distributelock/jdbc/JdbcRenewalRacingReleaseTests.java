package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.ForwardingLockBackend;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A renewal runs on a pooled connection of its own, so a release sent on the caller's
 * connection can overtake it. Once the release has ended, that renewal must not reach the
 * row: a caller that chose the owner value may have claimed the key again with it, and
 * the late renewal would give that new lock a whole watchdog lease.
 */
class JdbcRenewalRacingReleaseTests {

	private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(6);

	private static final Duration FIXED_LEASE = Duration.ofMillis(300);

	@OnEachDatabase
	void aRenewalInFlightAtTheReleaseNeverExtendsTheNextLockOfTheSameValue(JdbcTestDatabase database) throws Exception {
		String key = "renewal-race." + System.nanoTime();
		try (HikariDataSource holderData = database.newDataSource();
				HikariDataSource otherData = database.newDataSource()) {
			SlowRenewals backend = new SlowRenewals(new JdbcLockBackend(holderData));
			try (DefaultDistributeLock holder = new DefaultDistributeLock(backend, WATCHDOG_LEASE, false,
					LockEventListener.NONE, null);
					DefaultDistributeLock other = new DefaultDistributeLock(new JdbcLockBackend(otherData))) {
				assertThat(holder.tryLock(key, "value-1", 0, -1)).isTrue();
				assertThat(backend.renewalSent.await(20, TimeUnit.SECONDS)).as("a renewal sent").isTrue();
				assertThat(holder.releaseLock(key, "value-1")).isTrue();
				LockHandle again = holder
					.tryAcquire(LockRequest.of(key).withOwner("value-1").withLeaseTime(FIXED_LEASE))
					.orElseThrow();
				backend.claimedAgain.complete(null);
				assertThat(backend.renewalEnded.await(20, TimeUnit.SECONDS)).as("the renewal ended").isTrue();
				// The fixed lease of the new lock has run out well before then; the old
				// renewal, had it reached the row, keeps it for the watchdog's lease.
				Optional<LockHandle> next = other.tryAcquire(key, Duration.ofSeconds(3), null);
				assertThat(next).as("the key is free once the fixed lease of the new lock ran out").isPresent();
				next.get().close();
				again.close();
			}
		}
	}

	/**
	 * Holds the first renewal back, as a pool busy with other statements would, until the
	 * value was claimed again or a second has passed.
	 */
	private static final class SlowRenewals extends ForwardingLockBackend {

		private final AtomicBoolean held = new AtomicBoolean();

		final CountDownLatch renewalSent = new CountDownLatch(1);

		final CountDownLatch renewalEnded = new CountDownLatch(1);

		final CompletableFuture<Void> claimedAgain = new CompletableFuture<>();

		SlowRenewals(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
			if (!this.held.compareAndSet(false, true)) {
				return this.delegate.renew(claim, lease);
			}
			this.renewalSent.countDown();
			return this.claimedAgain.completeOnTimeout(null, 1, TimeUnit.SECONDS)
				.thenComposeAsync((go) -> this.delegate.renew(claim, lease))
				.whenComplete((renewed, failure) -> this.renewalEnded.countDown());
		}

	}

}
