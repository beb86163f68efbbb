package io.github.distributelock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.Lockable;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.ForwardingLockBackend;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@link Lockable @Lockable} method that throws, whose release then fails too: the
 * caller gets the method's own exception, with the release's failure attached to it, as
 * try-with-resources does, whatever the method returns.
 */
class LockableFailedReleaseTests {

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final ReleaseFailsOnce backend = new ReleaseFailsOnce(this.store);

	private final DefaultDistributeLock lock = new DefaultDistributeLock(this.backend);

	private final Jobs jobs = LockableProxies.proxy(new Jobs(), this.lock);

	@AfterEach
	void closeLock() {
		this.lock.close();
	}

	@Test
	void aMethodReturningAValueThrowsItsOwnException() {
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(this.jobs::value)
			.withMessage("the method's own")
			.satisfies(
					(ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(DistributeLockException.class));
		assertThat(this.backend.failed).isTrue();
	}

	@Test
	void aMethodReturningAStageThrowsItsOwnException() {
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(this.jobs::stage)
			.withMessage("the method's own")
			.satisfies(
					(ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(DistributeLockException.class));
		assertThat(this.backend.failed).isTrue();
	}

	public static class Jobs {

		@Lockable(key = "failed-release.value")
		public String value() {
			throw new IllegalArgumentException("the method's own");
		}

		@Lockable(key = "failed-release.stage")
		public CompletionStage<String> stage() {
			throw new IllegalArgumentException("the method's own");
		}

	}

	/** Fails the first release, as a store that drops its connection at that moment. */
	private static final class ReleaseFailsOnce extends ForwardingLockBackend {

		private final AtomicBoolean first = new AtomicBoolean();

		volatile boolean failed;

		ReleaseFailsOnce(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			if (this.first.compareAndSet(false, true)) {
				this.failed = true;
				return CompletableFuture.failedFuture(new IllegalStateException("connection reset"));
			}
			return super.release(claim);
		}

	}

}
