package io.github.distributelock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
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
 * A call whose attempt failed gives the key back before it attempts again, and its next
 * attempt waits for a give-back still retried in the background: the release checks only
 * the owner, which the next attempt presents again. Neither wait may outlast the caller's
 * deadline when the store does not answer the release (a ZooKeeper release waiting for
 * the reconnection, a JDBC release waiting for a pooled connection): the caller hears of
 * the store's failure by its deadline, the attempt is not sent after all, and the release
 * still reaches the store once the store answers.
 */
class GiveBackPastTheDeadlineTests {

	private static final Duration WAIT = Duration.ofMillis(500);

	/** The wait, plus more than a store round trip of the in-memory store. */
	private static final Duration WAIT_BOUND = WAIT.plusSeconds(1);

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend memory = new MemoryLockBackend();

	private final HangingReleases backend = new HangingReleases(this.memory);

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.backend));

	@AfterEach
	void letTheStoreAnswer() {
		this.backend.hang.complete(null);
	}

	@Test
	void aBlockingCallWhoseGiveBackHangsFailsByItsDeadline() throws Exception {
		this.backend.failReleases.set(0);
		Throwable thrown = assertTimeoutPreemptively(WAIT_BOUND,
				() -> catchThrowable(() -> this.lock.tryAcquire(LockRequest.of("hang.giveback").withWaitTime(WAIT))));
		assertFailedWithTheStoreError(thrown);
		assertReleasedOnceTheStoreAnswers("hang.giveback");
	}

	@Test
	void aBlockingCallWhoseRetriedGiveBackHangsFailsByItsDeadlineWithoutAttemptingAgain() throws Exception {
		this.backend.failReleases.set(1);
		Throwable thrown = assertTimeoutPreemptively(WAIT_BOUND,
				() -> catchThrowable(() -> this.lock.tryAcquire(LockRequest.of("hang.retry").withWaitTime(WAIT))));
		assertFailedWithTheStoreError(thrown);
		assertReleasedOnceTheStoreAnswers("hang.retry");
	}

	@Test
	void aNonBlockingCallWhoseGiveBackHangsFailsByItsDeadline() throws Exception {
		this.backend.failReleases.set(0);
		CompletableFuture<Optional<LockHandle>> call = this.lock
			.tryAcquireAsync(LockRequest.of("hang.async.giveback").withWaitTime(WAIT));
		assertFailedWithTheStoreError(failureWithin(call));
		assertReleasedOnceTheStoreAnswers("hang.async.giveback");
	}

	@Test
	void aNonBlockingCallWhoseRetriedGiveBackHangsFailsByItsDeadlineWithoutAttemptingAgain() throws Exception {
		this.backend.failReleases.set(1);
		CompletableFuture<Optional<LockHandle>> call = this.lock
			.tryAcquireAsync(LockRequest.of("hang.async.retry").withWaitTime(WAIT));
		assertFailedWithTheStoreError(failureWithin(call));
		assertReleasedOnceTheStoreAnswers("hang.async.retry");
	}

	@Test
	void aMultiKeyCallWhoseGiveBackHangsFailsByItsDeadline() throws Exception {
		this.backend.failReleases.set(0);
		LockRequest both = LockRequest.all(LockRequest.of("hang.all.a"), LockRequest.of("hang.all.b"))
			.withWaitTime(WAIT);
		Throwable thrown = assertTimeoutPreemptively(WAIT_BOUND,
				() -> catchThrowable(() -> this.lock.tryAcquire(both)));
		assertFailedWithTheStoreError(thrown);
		assertReleasedOnceTheStoreAnswers("hang.all.a", "hang.all.b");
	}

	@Test
	void aMultiKeyCallWhoseRetriedGiveBacksHangFailsByItsDeadlineWithoutAttemptingAgain() throws Exception {
		this.backend.failReleases.set(1);
		LockRequest both = LockRequest.all(LockRequest.of("hang.all.retry.a"), LockRequest.of("hang.all.retry.b"))
			.withWaitTime(WAIT);
		CompletableFuture<Optional<LockHandle>> call = this.lock.tryAcquireAsync(both);
		assertFailedWithTheStoreError(failureWithin(call));
		assertReleasedOnceTheStoreAnswers("hang.all.retry.a", "hang.all.retry.b");
	}

	/** A failed hanging release is retried in the background once the store answers. */
	@Test
	void aRetriedGiveBackThatFailsAfterTheDeadlineIsRetriedInTheBackground() throws Exception {
		this.backend.failReleases.set(1);
		CompletableFuture<Optional<LockHandle>> call = this.lock
			.tryAcquireAsync(LockRequest.of("hang.fails").withWaitTime(WAIT));
		assertFailedWithTheStoreError(failureWithin(call));
		assertThat(this.backend.attempts).as("attempts sent").hasValue(1);
		this.backend.hangThenFail = true;
		this.backend.hang.complete(null);
		await().atMost(BOUND).until(() -> !this.memory.isLocked("hang.fails"));
		assertThat(this.backend.attempts).as("attempts sent").hasValue(1);
		assertThat(this.backend.attemptsBeforeAReleaseAnswered).hasValue(0);
		assertNothingLeftLocally("hang.fails");
	}

	private static Throwable failureWithin(CompletableFuture<Optional<LockHandle>> call) throws Exception {
		try {
			call.get(WAIT_BOUND.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		throw new AssertionError("The call did not fail");
	}

	private void assertFailedWithTheStoreError(Throwable thrown) {
		assertThat(thrown).isInstanceOf(DistributeLockException.class)
			.rootCause()
			.isInstanceOf(IOException.class)
			.hasMessage("command timed out");
		assertThat(this.backend.attempts).as("attempts sent").hasValue(1);
		assertThat(this.backend.attemptsBeforeAReleaseAnswered).hasValue(0);
	}

	private void assertReleasedOnceTheStoreAnswers(String... keys) throws Exception {
		for (String key : keys) {
			assertThat(this.memory.isLocked(key)).as("the attempt the store applied is held until the release")
				.isTrue();
		}
		this.backend.hang.complete(null);
		for (String key : keys) {
			await().atMost(BOUND).until(() -> !this.memory.isLocked(key));
		}
		assertThat(this.backend.attempts).as("attempts sent").hasValue(1);
		assertThat(this.backend.attemptsBeforeAReleaseAnswered).hasValue(0);
		for (String key : keys) {
			assertNothingLeftLocally(key);
		}
	}

	private void assertNothingLeftLocally(String key) throws Exception {
		await().atMost(BOUND).until(() -> localLocks().size() == 0);
		this.backend.failAttempts.set(0);
		assertThat(this.lock.tryAcquire(key, Duration.ZERO, null)).as("the key's gate is free")
			.hasValueSatisfying(LockHandle::close);
	}

	private LocalLocks localLocks() throws ReflectiveOperationException {
		// The table is private to the facade; its size shows an entry left behind.
		Field locks = DefaultDistributeLock.class.getDeclaredField("locks");
		locks.setAccessible(true);
		return (LocalLocks) locks.get(this.lock);
	}

	/**
	 * Applies the first attempt and loses its answer (a command timeout); fails the first
	 * {@link #failReleases} releases at once, and holds every later one until
	 * {@link #hang} completes, as a store in an outage does. Counts attempts sent while a
	 * release sent before is unanswered.
	 */
	static final class HangingReleases extends ForwardingMultiKeyLockBackend {

		final AtomicInteger failAttempts = new AtomicInteger(1);

		final AtomicInteger failReleases = new AtomicInteger();

		final CompletableFuture<Void> hang = new CompletableFuture<>();

		volatile boolean hangThenFail;

		final AtomicInteger attempts = new AtomicInteger();

		final AtomicInteger releasesUnanswered = new AtomicInteger();

		final AtomicInteger attemptsBeforeAReleaseAnswered = new AtomicInteger();

		HangingReleases(MemoryLockBackend memory) {
			super(memory);
		}

		@Override
		public String name() {
			return "hanging";
		}

		@Override
		protected <T> CompletionStage<T> sendAttempt(Supplier<CompletionStage<T>> attempt) {
			if (this.releasesUnanswered.get() > 0) {
				this.attemptsBeforeAReleaseAnswered.incrementAndGet();
			}
			this.attempts.incrementAndGet();
			CompletionStage<T> applied = attempt.get();
			if (this.failAttempts.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
				return applied.thenCompose((result) -> failed());
			}
			return applied;
		}

		@Override
		protected <T> CompletionStage<T> sendRelease(Supplier<CompletionStage<T>> release) {
			if (this.failReleases.getAndUpdate((n) -> Math.max(0, n - 1)) > 0) {
				return failed();
			}
			this.releasesUnanswered.incrementAndGet();
			CompletableFuture<T> answer = (this.hang.isDone() && !this.hangThenFail)
					? release.get().toCompletableFuture() : this.hang.thenCompose((answered) -> {
						if (this.hangThenFail) {
							this.hangThenFail = false;
							return failed();
						}
						return release.get();
					});
			return answer.whenComplete((released, failure) -> this.releasesUnanswered.decrementAndGet());
		}

		private static <T> CompletableFuture<T> failed() {
			return CompletableFuture.failedFuture(new UncheckedIOException(new IOException("command timed out")));
		}

	}

}
