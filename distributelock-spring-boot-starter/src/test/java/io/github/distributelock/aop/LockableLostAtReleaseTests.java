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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * With {@code distributelock.throw-on-lost}, a {@link Lockable @Lockable} method that
 * throws, and whose lock turns out lost at the release, throws its own exception, the
 * loss added to it as suppressed, whatever it returns: the loss does not hide why the
 * work failed.
 */
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

	public static class Jobs {

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
