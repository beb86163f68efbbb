package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A minimum hold longer than a fixed lease is refused when the request is built, as for
 * one key, also when the two meet only in a part of a multi-key request: one set on the
 * combined request and the other on a part. Accepted then, the request failed only once
 * its keys were being taken, and left this JVM's entries of the keys behind (with the
 * hold of a key the thread held already, so that key was never released), or never
 * completed a non-blocking call, whose first key stayed held.
 */
class MultiKeyLeaseAndMinimumHoldTests {

	private static final Duration SHORT = Duration.ofSeconds(1);

	private static final Duration LONG = Duration.ofSeconds(5);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));

	@Test
	void aCombinedMinimumHoldLongerThanAPartsFixedLeaseIsRefused() throws Exception {
		Throwable refused;
		try (LockHandle outer = this.lock.tryAcquire("hold.b", Duration.ZERO, null).orElseThrow()) {
			refused = catchThrowable(() -> this.lock.tryAcquire(
					build(() -> LockRequest.all(LockRequest.of("hold.a").withLeaseTime(SHORT), LockRequest.of("hold.b"))
						.withMinimumHold(LONG))));
		}
		assertThat(this.store.isLocked("hold.a") || this.store.isLocked("hold.b"))
			.as("a key locked once the thread closed its own hold")
			.isFalse();
		assertThat(this.lock.heldLocks()).isEmpty();
		assertThat(refused).isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("hold.a")
			.hasMessageContaining("must not be longer than the fixed leaseTime");
	}

	@Test
	void aPartsMinimumHoldLongerThanTheCombinedFixedLeaseIsRefused() throws Exception {
		assertThatIllegalArgumentException().isThrownBy(() -> this.lock.tryAcquire(
				build(() -> LockRequest.all(LockRequest.of("hold.c"), LockRequest.of("hold.d").withMinimumHold(LONG))
					.withLeaseTime(SHORT))))
			.withMessageContaining("hold.d");
		assertThat(this.store.isLocked("hold.c") || this.store.isLocked("hold.d")).isFalse();
		assertThat(this.lock.heldLocks()).isEmpty();
	}

	@Test
	void aNonBlockingRequestWhoseSecondKeyCannotHaveTheCombinedMinimumHoldIsRefused() throws Exception {
		assertThatIllegalArgumentException().isThrownBy(() -> {
			CompletableFuture<Optional<LockHandle>> taken = this.lock.tryAcquireAsync(build(() -> LockRequest
				.all(LockRequest.of("hold.e"), LockRequest.of("hold.f").withMode(LockMode.READ).withLeaseTime(SHORT))
				.withMinimumHold(LONG)));
			try {
				taken.get(10, java.util.concurrent.TimeUnit.SECONDS).ifPresent(LockHandle::close);
			}
			catch (java.util.concurrent.ExecutionException ex) {
				throw (RuntimeException) ex.getCause();
			}
		});
		assertThat(this.store.isLocked("hold.e") || this.store.isLocked("hold.f")).isFalse();
		assertThat(this.lock.heldLocks()).isEmpty();
	}

	@Test
	void partsWhoseOwnSettingsFitAreAccepted() throws Exception {
		LockRequest request = LockRequest
			.all(LockRequest.of("hold.g").withLeaseTime(LONG), LockRequest.of("hold.h").withMinimumHold(SHORT))
			.withLeaseTime(LONG)
			.withMinimumHold(SHORT);
		this.lock.tryAcquire(request).orElseThrow().close();
		assertThat(LockRequest.all(LockRequest.of("hold.i").withLeaseTime(SHORT).withMinimumHold(SHORT))
			.withMinimumHold(LONG)
			.minimumHold()).isEqualTo(LONG);
	}

	private static LockRequest build(Supplier<LockRequest> request) {
		return request.get();
	}

}
