package io.github.distributelock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributelock.LockLostException;
import io.github.distributelock.Lockable;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.ForwardingLockBackend;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * With {@code distributelock.throw-on-lost}, a {@link Lockable @Lockable} method whose
 * lock turns out lost at the release ends with the loss, and one that fails ends with its
 * own exception, the loss added to it as suppressed, whatever it returns: the loss does
 * not hide why the work failed. A future has completed when its lock is released, so its
 * loss is logged.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockableLostAtReleaseTests {

	private final MemoryLockBackend store = new MemoryLockBackend();

	/** A store that no longer has the lock at the release, as after a lease ran out. */
	private final DefaultDistributeLock lock = new DefaultDistributeLock(new ForwardingLockBackend(this.store) {

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			return this.delegate.release(claim).thenApply((released) -> false);
		}

	}, Duration.ofSeconds(30), true, LockEventListener.NONE, null);

	private final Jobs jobs = LockableProxies.proxy(new Jobs(), this.lock);

	@AfterEach
	void closeLock() {
		this.lock.close();
	}

	@Test
	void aBlockingMethodThrowsItsOwnFailureWithTheLossSuppressed() {
		assertThatIllegalStateException().isThrownBy(this.jobs::blocking)
			.withMessage("work failed")
			.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(LockLostException.class));
	}

	@Test
	void aFutureMethodThatThrowsAtTheCallThrowsItsOwnFailureWithTheLossSuppressed() {
		assertThatIllegalStateException().isThrownBy(this.jobs::future)
			.withMessage("work failed")
			.satisfies((ex) -> assertThat(ex.getSuppressed()).singleElement().isInstanceOf(LockLostException.class));
		assertThat(this.store.isLocked("lost.future")).isFalse();
	}

	/**
	 * The future has completed when its lock is released: the loss found there cannot
	 * reach the caller, and is logged as observability.md says.
	 */
	@Test
	void aFutureMethodWhoseLockIsFoundLostAtTheReleaseLogsTheLoss(CapturedOutput output) {
		assertThat(this.jobs.completing()).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("done");
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(output.getOut())
				.contains("Could not release lock 'lost.completing' after the stage it guarded completed")
				.contains(LockLostException.class.getName()));
	}

	/**
	 * A publisher's lock is released before the subscriber hears that the work ended: a
	 * loss found there ends the work with it, as a blocking method throws it.
	 */
	@Test
	void aMonoOrFluxWhoseLockIsFoundLostAtTheReleaseEndsWithTheLoss() {
		StepVerifier.create(this.jobs.mono()).expectError(LockLostException.class).verify(Duration.ofSeconds(10));
		StepVerifier.create(this.jobs.flux())
			.expectNext("a", "b")
			.expectError(LockLostException.class)
			.verify(Duration.ofSeconds(10));
		assertThat(this.store.isLocked("lost.mono")).isFalse();
		assertThat(this.store.isLocked("lost.flux")).isFalse();
	}

	@Test
	void aMonoThatFailsEndsWithItsOwnFailureWithTheLossSuppressed() {
		StepVerifier.create(this.jobs.failingMono())
			.expectErrorSatisfies((ex) -> assertThat(ex).isInstanceOf(IllegalStateException.class)
				.hasMessage("work failed")
				.satisfies((failure) -> assertThat(failure.getSuppressed()).singleElement()
					.isInstanceOf(LockLostException.class)))
			.verify(Duration.ofSeconds(10));
	}

	public static class Jobs {

		@Lockable(key = "lost.mono")
		public Mono<String> mono() {
			return Mono.just("done");
		}

		@Lockable(key = "lost.flux")
		public Flux<String> flux() {
			return Flux.just("a", "b");
		}

		@Lockable(key = "lost.failingMono")
		public Mono<String> failingMono() {
			return Mono.error(new IllegalStateException("work failed"));
		}

		@Lockable(key = "lost.completing")
		public CompletableFuture<String> completing() {
			return CompletableFuture.completedFuture("done");
		}

		@Lockable(key = "lost.blocking")
		public void blocking() {
			throw new IllegalStateException("work failed");
		}

		@Lockable(key = "lost.future")
		public CompletableFuture<String> future() {
			throw new IllegalStateException("work failed");
		}

	}

}
