package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A multi-key request taken one key after the other that is not taken whole leaves no key
 * in the store, also with a minimum hold: the keys it took are given back at once, not
 * kept for the minimum hold as a closed handle's are; a key the thread held already keeps
 * that hold.
 */
class MultiKeyGiveBackTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));

	private final DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.store));

	private final LockRequest request = LockRequest
		.all(LockRequest.of("give-back.a"), LockRequest.of("give-back.b").withMode(LockMode.WRITE),
				LockRequest.of("give-back.c"))
		.withMinimumHold(Duration.ofMinutes(5));

	@Test
	void aBlockingRequestNotTakenWholeLeavesNoKeyForItsMinimumHold() throws Exception {
		try (LockHandle reading = this.other.tryAcquire(LockRequest.of("give-back.c")).orElseThrow()) {
			assertThat(this.lock.tryAcquire(this.request)).isEmpty();
			assertThat(this.store.isLocked("give-back.a") || this.store.isLocked("give-back.b"))
				.as("a key the request took, kept for its minimum hold")
				.isFalse();
		}
		assertThat(this.lock.heldLocks()).isEmpty();
	}

	@Test
	void aNonBlockingRequestNotTakenWholeLeavesNoKeyForItsMinimumHold() throws Exception {
		try (LockHandle reading = this.other.tryAcquire(LockRequest.of("give-back.c")).orElseThrow()) {
			assertThat(this.lock.tryAcquireAsync(this.request)).succeedsWithin(BOUND).isEqualTo(Optional.empty());
			assertThat(this.store.isLocked("give-back.a") || this.store.isLocked("give-back.b"))
				.as("a key the request took, kept for its minimum hold")
				.isFalse();
		}
		assertThat(this.lock.heldLocks()).isEmpty();
	}

	@Test
	void aKeyTheThreadHeldKeepsItsHoldWhenTheRequestIsNotTakenWhole() throws Exception {
		try (LockHandle reading = this.other.tryAcquire(LockRequest.of("give-back.c")).orElseThrow()) {
			try (LockHandle outer = this.lock.tryAcquire("give-back.a", Duration.ZERO, null).orElseThrow()) {
				assertThat(this.lock.tryAcquire(this.request)).isEmpty();
				assertThat(outer.isHeld()).isTrue();
				assertThat(this.store.isLocked("give-back.a")).isTrue();
				assertThat(this.store.isLocked("give-back.b")).isFalse();
			}
		}
		assertThat(this.store.isLocked("give-back.a")).isFalse();
		assertThat(this.lock.heldLocks()).isEmpty();
	}

}
