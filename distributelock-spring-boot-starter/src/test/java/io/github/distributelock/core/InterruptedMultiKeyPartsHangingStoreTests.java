package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A blocking multi-key caller whose keys are taken one after the other (a store that does
 * not take them in one call) and that is interrupted while a later key's attempt is in
 * flight returns by its deadline even when the store does not answer the releases of the
 * keys it took already, as a single-key caller does: those releases go on without it, and
 * the keys stay gated in this JVM until the store has answered them.
 */
class InterruptedMultiKeyPartsHangingStoreTests {

	private static final Duration WAIT = Duration.ofSeconds(1);

	/** The wait, plus room for a loaded machine. */
	private static final Duration WAIT_BOUND = WAIT.plusSeconds(2);

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend memory = new MemoryLockBackend();

	private final PartsHangingStore backend = new PartsHangingStore(this.memory);

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.backend));

	@AfterEach
	void letTheStoreAnswer() {
		this.backend.secondAttemptsAnswered.complete(null);
		this.backend.releasesAnswered.complete(null);
	}

	@Test
	void anInterruptedCallerWhoseTakenKeysReleasesHangReturnsByItsDeadline() throws Exception {
		LockRequest both = LockRequest.all(LockRequest.of("parts.a"), LockRequest.of("parts.b")).withWaitTime(WAIT);
		CompletableFuture<Throwable> ended = new CompletableFuture<>();
		Thread caller = new Thread(() -> ended.complete(catchThrowable(() -> this.lock.tryAcquire(both))),
				"interrupted-multi-key-caller");
		caller.setDaemon(true);
		caller.start();
		assertThat(this.backend.secondAttemptSent.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		caller.interrupt();
		Throwable thrown = assertTimeoutPreemptively(WAIT_BOUND, () -> ended.get());
		assertThat(thrown).isInstanceOf(InterruptedException.class);
		// The first key's release has not been answered: it stays held in the store and
		// gated here until it is, and is then gone.
		assertThat(this.memory.isLocked("parts.a")).isTrue();
		this.backend.releasesAnswered.complete(null);
		// The second key's attempt, answered late, took it: it is given back too.
		this.backend.secondAttemptsAnswered.complete(null);
		await().atMost(BOUND).until(() -> !this.memory.isLocked("parts.a") && !this.memory.isLocked("parts.b"));
		// Gated here until the answer's continuation has run.
		for (String key : List.of("parts.a", "parts.b")) {
			await().atMost(BOUND).until(() -> takenAndClosed(key));
		}
	}

	private boolean takenAndClosed(String key) throws InterruptedException {
		Optional<LockHandle> handle = this.lock.tryAcquire(key, Duration.ZERO, null);
		handle.ifPresent(LockHandle::close);
		return handle.isPresent();
	}

	/**
	 * Takes no keys in one call; answers the attempts on {@code parts.b} only once
	 * {@link #secondAttemptsAnswered} completes, and releases only once
	 * {@link #releasesAnswered} completes, as a store in an outage does.
	 */
	static final class PartsHangingStore extends ForwardingLockBackend {

		final CountDownLatch secondAttemptSent = new CountDownLatch(1);

		final CompletableFuture<Void> secondAttemptsAnswered = new CompletableFuture<>();

		final CompletableFuture<Void> releasesAnswered = new CompletableFuture<>();

		PartsHangingStore(MemoryLockBackend memory) {
			super(memory);
		}

		@Override
		public String name() {
			return "parts-hanging";
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			if (!claim.key().equals("parts.b")) {
				return this.delegate.tryAcquire(claim, lease);
			}
			this.secondAttemptSent.countDown();
			return this.secondAttemptsAnswered.thenCompose((answered) -> this.delegate.tryAcquire(claim, lease));
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			return this.releasesAnswered.thenCompose((answered) -> this.delegate.release(claim));
		}

	}

}
