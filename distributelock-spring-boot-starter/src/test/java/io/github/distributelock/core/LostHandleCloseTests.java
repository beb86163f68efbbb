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
		try (LockHandle taken = this.lock.tryAcquire(request.withLeaseTime(Duration.ofMinutes(1))).orElseThrow()) {
			lost.close();
			assertThat(this.store.isLocked("lost-handle")).as("the lock taken since, in the store").isTrue();
			assertThat(taken.isHeld()).isTrue();
		}
		assertThat(this.store.isLocked("lost-handle")).isFalse();
	}

}
