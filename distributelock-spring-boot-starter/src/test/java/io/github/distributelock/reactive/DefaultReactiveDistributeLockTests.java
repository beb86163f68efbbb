package io.github.distributelock.reactive;

import java.time.Duration;

import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reactive lock API at the edges of a subscription, on an in-memory store whose
 * uncontended acquisition completes before the subscriber hears of it.
 */
class DefaultReactiveDistributeLockTests {

	/**
	 * A subscription cancelled once the engine has handed out the lock but before the
	 * subscriber asked for it: the future, already complete, cancels nothing, and the
	 * lock must not stay held by nobody.
	 */
	@Test
	void aSubscriptionCancelledAsTheLockArrivesLeavesItFree() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			reactive.tryAcquire(LockRequest.of("reactive.cancelled")).subscribe(new BaseSubscriber<>() {
				@Override
				protected void hookOnSubscribe(Subscription subscription) {
					cancel();
				}
			});
			// Released without blocking: the release may complete after the cancel
			// returns.
			await().atMost(Duration.ofSeconds(5)).until(() -> lock.heldLocks().isEmpty());
			assertThat(lock.tryAcquire("reactive.cancelled", Duration.ZERO, null)).isPresent()
				.hasValueSatisfying((handle) -> handle.close());
		}
	}

}
