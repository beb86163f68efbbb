package io.github.distributelock.core;

import java.time.Duration;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code releaseLock(key, value)} releases at once a lock that a store without leases
 * keeps for its minimum hold (its release put off to the end of that hold): the release
 * is then sent, not pending, so the value is free for a new claim, and the put-off
 * release never ends that claim.
 */
class ReleaseLockByValueTests {

	private static final Duration MINIMUM_HOLD = Duration.ofMillis(300);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final SessionMemoryLockBackend store = this.closeables.add(new SessionMemoryLockBackend());

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));

	@Test
	void aValueKeptForItsMinimumHoldIsFreeForANewClaimOnceReleasedByValue() throws Exception {
		LockHandle kept = this.lock
			.tryAcquire(LockRequest.of("by-value").withOwner("value-1").withMinimumHold(MINIMUM_HOLD))
			.orElseThrow();
		kept.close();
		assertThat(this.store.locks).containsEntry("by-value", "value-1");
		assertThat(this.lock.releaseLock("by-value", "value-1")).isTrue();
		assertThat(this.store.locks).doesNotContainKey("by-value");
		assertThat(this.lock.tryLock("by-value", "value-1", 0, -1)).as("the value taken again after its release")
			.isTrue();
		// Past the end of the first claim's minimum hold, whose put-off release is gone.
		await().during(MINIMUM_HOLD.multipliedBy(2))
			.atMost(MINIMUM_HOLD.multipliedBy(4))
			.until(() -> "value-1".equals(this.store.locks.get("by-value")));
		assertThat(this.lock.releaseLock("by-value", "value-1")).isTrue();
		assertThat(this.store.locks).isEmpty();
	}

}
