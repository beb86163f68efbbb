package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockServiceShutdownException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A store that answers an acquisition only after {@code close()} has given up waiting for
 * it (its drain lasts 5 s) and stopped the lock service's own scheduler: what the answer
 * took is still given back. The blocking caller had stopped waiting, so the call's next
 * step went to that scheduler, which refused it, and the lock stayed in the store, held
 * by nobody, for its whole lease.
 */
class AnswerAfterTheShutdownTests {

	/** Far longer than the test: the store does not free the key by itself meanwhile. */
	private static final Duration WATCHDOG_LEASE = Duration.ofMinutes(5);

	/** Long enough for close(), which waits 5 s for the drain and 5 s for releases. */
	private static final long BOUND_SECONDS = 30;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	AnswerAfterTheShutdownTests() {
		this.closeables.add(this.threads::shutdownNow);
	}

	@Test
	void aLockTakenByAnAttemptAnsweredAfterTheShutdownIsGivenBack() throws Exception {
		HeldBack backend = new HeldBack(this.store);
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(backend, WATCHDOG_LEASE, false, LockEventListener.NONE, null));
		Future<Optional<LockHandle>> caller = this.threads
			.submit(() -> lock.tryAcquire("after-shutdown.attempt", Duration.ofSeconds(BOUND_SECONDS), null));
		assertThat(backend.applied.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("attempt applied").isTrue();
		Future<?> closing = this.threads.submit(() -> lock.close());
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> caller.get(BOUND_SECONDS, TimeUnit.SECONDS))
			.withCauseInstanceOf(LockServiceShutdownException.class);
		closing.get(BOUND_SECONDS, TimeUnit.SECONDS);
		backend.answer.complete(null);
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.store.isLocked("after-shutdown.attempt"));
	}

	@Test
	void aLockHandedToAWaiterAndAnsweredAfterTheShutdownIsGivenBack() throws Exception {
		HandingOver backend = new HandingOver(this.store);
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(backend, WATCHDOG_LEASE, false, LockEventListener.NONE, null));
		LockHandle held = lock.tryAcquire("after-shutdown.hand-over", Duration.ZERO, null).orElseThrow();
		Future<Optional<LockHandle>> waiter = this.threads
			.submit(() -> lock.tryAcquire("after-shutdown.hand-over", Duration.ofSeconds(BOUND_SECONDS), null));
		await().atMost(Duration.ofSeconds(10)).until(() -> lock.waitingAtGate("after-shutdown.hand-over") == 1);
		held.releaseAsync();
		assertThat(backend.applied.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("hand-over applied").isTrue();
		Future<?> closing = this.threads.submit(() -> lock.close());
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> waiter.get(BOUND_SECONDS, TimeUnit.SECONDS))
			.withCauseInstanceOf(LockServiceShutdownException.class);
		closing.get(BOUND_SECONDS, TimeUnit.SECONDS);
		backend.answer.complete(null);
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.store.isLocked("after-shutdown.hand-over"));
	}

	/**
	 * Applies the first attempt at once, and answers it once {@link #answer} completes.
	 */
	private static final class HeldBack extends ForwardingLockBackend {

		final CountDownLatch applied = new CountDownLatch(1);

		final CompletableFuture<Void> answer = new CompletableFuture<>();

		HeldBack(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			CompletionStage<AcquireResult> attempt = this.delegate.tryAcquire(claim, lease);
			this.applied.countDown();
			return attempt.thenCombine(this.answer, (result, go) -> result);
		}

	}

	/**
	 * Hands a lock over as one step (a release and an attempt, under the memory store's
	 * lock each), applied at once and answered once {@link #answer} completes.
	 */
	private static final class HandingOver extends ForwardingLockBackend implements HandOverLockBackend {

		final CountDownLatch applied = new CountDownLatch(1);

		final CompletableFuture<Void> answer = new CompletableFuture<>();

		HandingOver(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<HandOver> handOver(Claim holder, Claim next, Duration lease) {
			boolean released = this.delegate.release(holder).toCompletableFuture().join();
			AcquireResult taken = this.delegate.tryAcquire(next, lease).toCompletableFuture().join();
			this.applied.countDown();
			return this.answer.thenApply((go) -> new HandOver(released, taken));
		}

	}

}
