package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reentrant entry inherits the lease and the minimum hold of the hold it joins, as
 * {@link LockRequest#withLeaseTime(Duration)} documents: its own are ignored, not
 * refused, so that nested {@code @Lockable} methods with different settings keep working.
 */
class ReentrantEntryLeaseTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	/** An instance of the application on the shared store. */
	private DefaultDistributeLock newInstance() {
		return this.closeables
			.add(new DefaultDistributeLock(this.store, Duration.ofMillis(300), false, LockEventListener.NONE, null));
	}

	@Test
	void anEntryAskingForTheWatchdogInsideAFixedLeaseIsLostWhenThatLeaseRunsOut() throws Exception {
		DefaultDistributeLock instance = newInstance();
		DefaultDistributeLock other = newInstance();
		LockHandle outer = instance.tryAcquire("reentrant.lease", Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
		LockHandle inner = instance.tryAcquire(LockRequest.of("reentrant.lease").withLeaseTime(null)).orElseThrow();
		CountDownLatch innerLost = new CountDownLatch(1);
		inner.onLost((lost) -> innerLost.countDown());
		assertThat(innerLost.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(inner.isHeld()).isFalse();
		assertThat(outer.isHeld()).isFalse();
		assertThat(other.tryAcquire("reentrant.lease", Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
		inner.close();
		outer.close();
		assertThat(instance.lostLockCount()).isOne();
	}

	@Test
	void anEntryAskingForAMinimumHoldInsideAHoldWithoutOneIsReleasedWithTheOuterHold() throws Exception {
		DefaultDistributeLock instance = newInstance();
		DefaultDistributeLock other = newInstance();
		LockHandle outer = instance.tryAcquire("reentrant.hold", Duration.ZERO, null).orElseThrow();
		instance.tryAcquire(LockRequest.of("reentrant.hold").withMinimumHold(Duration.ofMinutes(10)))
			.orElseThrow()
			.close();
		outer.close();
		assertThat(other.tryAcquire("reentrant.hold", Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

}
