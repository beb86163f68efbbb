package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A non-blocking multi-key request whose keys are taken one after the other, on a store
 * that answers on the thread that asks (as the in-memory store does), takes each key in a
 * loop, not in a call nested in the last key's completion.
 */
class MultiKeyManyKeysTests {

	/** Far more keys than a thread's stack holds acquisitions nested in each other. */
	private static final int KEYS = 3_000;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));

	@Test
	void aNonBlockingRequestOfThousandsOfKeysTakenOneAfterTheOtherCompletes() throws Exception {
		List<LockRequest> parts = new ArrayList<>();
		// A read key: the request is taken one key after the other.
		parts.add(LockRequest.of("many.0000").withMode(LockMode.READ));
		for (int i = 1; i < KEYS; i++) {
			parts.add(LockRequest.of(String.format("many.%04d", i)));
		}
		CompletableFuture<Optional<LockHandle>> taken = this.lock
			.tryAcquireAsync(LockRequest.all(parts.toArray(LockRequest[]::new)));
		assertThat(taken).succeedsWithin(Duration.ofSeconds(10));
		try (LockHandle all = taken.join().orElseThrow()) {
			assertThat(this.lock.heldLocks()).hasSize(KEYS);
		}
		assertThat(this.lock.heldLocks()).isEmpty();
		assertThat(this.store.isLocked("many.0000") || this.store.isLocked("many.2999")).isFalse();
	}

}
