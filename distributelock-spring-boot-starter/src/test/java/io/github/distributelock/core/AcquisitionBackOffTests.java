package io.github.distributelock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A caller that gives up while the engine pauses before attempting again after a store
 * failure (the growing pause of 50 ms to 1 s) lets go of the key at once, as it does when
 * it gives up during any other wait. The tests run on a scheduler whose timers never
 * fire, so the pause of a non-blocking call never ends by itself; a blocking caller ends
 * its own once due ({@link BlockingCallDeadlineTests}), within its wait time of 30 s.
 */
class AcquisitionBackOffTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final FailingAttempts backend = new FailingAttempts(this.store);

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.backend,
			Duration.ofSeconds(30), false, LockEventListener.NONE, new InlineScheduler()));

	@Test
	void aNonBlockingCallCancelledWhileItPausesAfterAStoreFailureFreesTheKeyAtOnce() throws Exception {
		this.backend.failAttempts = true;
		CompletableFuture<Optional<LockHandle>> waiting = this.lock
			.tryAcquireAsync(LockRequest.of("backoff.async").withWaitTime(WAIT));
		assertThat(this.backend.failedAttempts).hasValue(1);
		assertThat(waiting).isNotDone();
		this.backend.failAttempts = false;
		assertThat(waiting.cancel(false)).isTrue();
		assertThat(this.lock.tryAcquire("backoff.async", Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
		assertThat(this.store.isLocked("backoff.async")).isFalse();
	}

	@Test
	void aNonBlockingMultiKeyCallCancelledWhileItPausesAfterAStoreFailureFreesTheKeysAtOnce() throws Exception {
		LockRequest both = LockRequest.all(LockRequest.of("backoff.a"), LockRequest.of("backoff.b"));
		this.backend.failAttempts = true;
		CompletableFuture<Optional<LockHandle>> waiting = this.lock.tryAcquireAsync(both.withWaitTime(WAIT));
		assertThat(this.backend.failedAttempts).hasValue(1);
		assertThat(waiting).isNotDone();
		this.backend.failAttempts = false;
		assertThat(waiting.cancel(false)).isTrue();
		assertThat(this.lock.tryAcquire(both)).hasValueSatisfying(LockHandle::close);
		assertThat(this.store.isLocked("backoff.a") || this.store.isLocked("backoff.b")).isFalse();
	}

	@Test
	void aBlockingCallInterruptedWhileItPausesAfterAStoreFailureEndsAtOnce() throws Exception {
		this.backend.failAttempts = true;
		AtomicReference<Throwable> thrown = new AtomicReference<>();
		Thread caller = new Thread(() -> {
			try {
				this.lock.tryAcquire(LockRequest.of("backoff.blocking").withWaitTime(WAIT));
			}
			catch (Throwable ex) {
				thrown.set(ex);
			}
		});
		caller.setDaemon(true);
		caller.start();
		await().atMost(BOUND).until(() -> this.backend.failedAttempts.get() >= 1);
		// Attempts still fail, so that a pause the caller ends itself does not take the
		// key before the interrupt lands.
		caller.interrupt();
		caller.join(BOUND.toMillis());
		assertThat(caller.isAlive()).as("still waiting for the pause to end").isFalse();
		assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
		this.backend.failAttempts = false;
		assertThat(this.lock.tryAcquire("backoff.blocking", Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	/** Fails attempts, single and multi-key, as a dropped connection does, while set. */
	static final class FailingAttempts extends CountingLockBackend {

		volatile boolean failAttempts;

		final AtomicInteger failedAttempts = new AtomicInteger();

		FailingAttempts(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			return this.failAttempts ? fail() : super.tryAcquire(claim, lease);
		}

		@Override
		public CompletionStage<MultiKeyAcquireResult> tryAcquireAll(java.util.List<Claim> claims,
				java.util.List<Duration> leases) {
			return this.failAttempts ? fail() : super.tryAcquireAll(claims, leases);
		}

		private <T> CompletionStage<T> fail() {
			this.failedAttempts.incrementAndGet();
			return CompletableFuture
				.failedFuture(new UncheckedIOException(new IOException("connection reset, as a test asked for")));
		}

	}

}
