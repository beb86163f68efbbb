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

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * With {@code distributelock.throw-on-lost}, a {@link Lockable @Lockable} method that
 * throws, and whose lock turns out lost at the release, throws its own exception, the
 * loss added to it as suppressed, whatever it returns: the loss does not hide why the
 * work failed.
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

	public static class Jobs {

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
