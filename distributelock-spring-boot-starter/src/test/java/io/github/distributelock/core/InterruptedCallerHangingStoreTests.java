package io.github.distributelock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A blocking caller interrupted while its attempt is in flight returns by its deadline
 * even when the store answers neither the attempt nor the give-back release (a ZooKeeper
 * release waiting for the reconnection, a JDBC one for a pooled connection, a Redis
 * command timeout): the give-back goes on without it, the key stays gated in this JVM
 * until the store has answered, and nothing is left in the store then.
 */
class InterruptedCallerHangingStoreTests {

	private static final Duration WAIT = Duration.ofSeconds(1);

	/** The wait, plus room for a loaded machine. */
	private static final Duration WAIT_BOUND = WAIT.plusSeconds(2);

	private static final Duration BOUND = Duration.ofSeconds(10);

	/** A wait that does not end within the test: a caller without a deadline. */
	private static final Duration NO_DEADLINE = Duration.ofDays(1);

	/** The fixed lease of the callers without a deadline, which bounds their wait. */
	private static final Duration LEASE = Duration.ofSeconds(1);

	/** The lease, plus room for a loaded machine. */
	private static final Duration LEASE_BOUND = LEASE.plusSeconds(2);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend memory = new MemoryLockBackend();

	private HangingStore backend = new HangingStore(this.memory, null);

	private DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.backend));

	@AfterEach
	void letTheStoreAnswer() {
		this.backend.attemptsAnswered.complete(null);
		this.backend.releasesAnswered.complete(null);
	}

	@Test
	void anInterruptedCallerWhoseGiveBackHangsReturnsByItsDeadline() throws Exception {
		Outcome outcome = interruptedInItsAttempt(LockRequest.of("interrupt.giveback").withWaitTime(WAIT));
		// The attempt in flight took the key as the interrupt came: its give-back hangs.
		this.backend.attemptsAnswered.complete(null);
		outcome.assertInterruptedWithin(WAIT_BOUND, "interrupt.giveback");
		assertGatedUntilTheStoreAnswers("interrupt.giveback");
	}

	@Test
	void anInterruptedCallerWhoseAttemptHangsReturnsByItsDeadline() throws Exception {
		Outcome outcome = interruptedInItsAttempt(LockRequest.of("interrupt.attempt").withWaitTime(WAIT));
		outcome.assertInterruptedWithin(WAIT_BOUND, "interrupt.attempt");
		this.backend.attemptsAnswered.complete(null);
		assertGatedUntilTheStoreAnswers("interrupt.attempt");
	}

	@Test
	void anInterruptedMultiKeyCallerWhoseGiveBackHangsReturnsByItsDeadline() throws Exception {
		LockRequest both = LockRequest.all(LockRequest.of("interrupt.all.a"), LockRequest.of("interrupt.all.b"))
			.withWaitTime(WAIT);
		Outcome outcome = interruptedInItsAttempt(both);
		this.backend.attemptsAnswered.complete(null);
		outcome.assertInterruptedWithin(WAIT_BOUND, "interrupt.all.a");
		assertGatedUntilTheStoreAnswers("interrupt.all.a", "interrupt.all.b");
	}

	@Test
	void anInterruptedMultiKeyCallerWhoseAttemptHangsReturnsByItsDeadline() throws Exception {
		LockRequest both = LockRequest
			.all(LockRequest.of("interrupt.all.attempt.a"), LockRequest.of("interrupt.all.attempt.b"))
			.withWaitTime(WAIT);
		Outcome outcome = interruptedInItsAttempt(both);
		outcome.assertInterruptedWithin(WAIT_BOUND, "interrupt.all.attempt.a");
		this.backend.attemptsAnswered.complete(null);
		assertGatedUntilTheStoreAnswers("interrupt.all.attempt.a", "interrupt.all.attempt.b");
	}

	/**
	 * Keys taken one after the other (a store that does not take them in one call): the
	 * release of the key taken already must be waited for only until the deadline too.
	 */
	@Test
	void anInterruptedMultiKeyCallerWhoseKeysAreTakenOneByOneReturnsByItsDeadline() throws Exception {
		this.backend = new HangingStore(this.memory, "parts.a");
		this.lock = this.closeables.add(new DefaultDistributeLock(this.backend));
		LockRequest both = LockRequest.all(LockRequest.of("parts.a"), LockRequest.of("parts.b")).withWaitTime(WAIT);
		Outcome outcome = interruptedInItsAttempt(both);
		outcome.assertInterruptedWithin(WAIT_BOUND, "parts.b");
		// The second key's attempt, answered late, took it: it is given back too.
		this.backend.attemptsAnswered.complete(null);
		assertGatedUntilTheStoreAnswers("parts.a", "parts.b");
	}

	/**
	 * Without a deadline the caller would wait as long as the store: it waits one lease
	 * at most.
	 */
	@Test
	void anInterruptedCallerWithoutADeadlineWhoseGiveBackHangsReturnsWithinOneLease() throws Exception {
		Outcome outcome = interruptedInItsAttempt(
				LockRequest.of("nodeadline.giveback").withWaitTime(NO_DEADLINE).withLeaseTime(LEASE));
		this.backend.attemptsAnswered.complete(null);
		outcome.assertInterruptedWithin(LEASE_BOUND, "nodeadline.giveback");
		// The lock the attempt took has run out of its lease in the store by now.
		assertGatedUntilTheReleasesAreAnswered("nodeadline.giveback");
	}

	@Test
	void anInterruptedCallerWithoutADeadlineWhoseAttemptHangsReturnsWithinOneLease() throws Exception {
		Outcome outcome = interruptedInItsAttempt(
				LockRequest.of("nodeadline.attempt").withWaitTime(NO_DEADLINE).withLeaseTime(LEASE));
		outcome.assertInterruptedWithin(LEASE_BOUND, "nodeadline.attempt");
		this.backend.attemptsAnswered.complete(null);
		assertGatedUntilTheStoreAnswers("nodeadline.attempt");
	}

	@Test
	void anInterruptedMultiKeyCallerWithoutADeadlineWhoseAttemptHangsReturnsWithinOneLease() throws Exception {
		LockRequest both = LockRequest.all(LockRequest.of("nodeadline.all.a"), LockRequest.of("nodeadline.all.b"))
			.withWaitTime(NO_DEADLINE)
			.withLeaseTime(LEASE);
		Outcome outcome = interruptedInItsAttempt(both);
		outcome.assertInterruptedWithin(LEASE_BOUND, "nodeadline.all.a");
		this.backend.attemptsAnswered.complete(null);
		assertGatedUntilTheStoreAnswers("nodeadline.all.a", "nodeadline.all.b");
	}

	/**
	 * Keys taken one after the other: the second key's call and the first key's release
	 * are each waited for one lease at most.
	 */
	@Test
	void anInterruptedMultiKeyCallerWithoutADeadlineWhoseKeysAreTakenOneByOneReturnsWithinTwoLeases() throws Exception {
		this.backend = new HangingStore(this.memory, "nodeadline.parts.a");
		this.lock = this.closeables.add(new DefaultDistributeLock(this.backend));
		LockRequest both = LockRequest.all(LockRequest.of("nodeadline.parts.a"), LockRequest.of("nodeadline.parts.b"))
			.withWaitTime(NO_DEADLINE)
			.withLeaseTime(LEASE);
		Outcome outcome = interruptedInItsAttempt(both);
		outcome.assertInterruptedWithin(LEASE_BOUND.plus(LEASE), "nodeadline.parts.b");
		// The first key's lease may run out before or after its release is sent (lost,
		// or gated until the release is answered): only the end is certain.
		this.backend.attemptsAnswered.complete(null);
		this.backend.releasesAnswered.complete(null);
		await().atMost(BOUND).until(() -> localLocks().size() == 0);
		for (String key : List.of("nodeadline.parts.a", "nodeadline.parts.b")) {
			await().atMost(BOUND).until(() -> !this.memory.isLocked(key));
			assertThat(this.lock.tryAcquire(key, Duration.ZERO, null)).as("the key is free")
				.hasValueSatisfying(LockHandle::close);
		}
	}

	/**
	 * A store that answers slower than a short lease: the caller waits for the give-back
	 * one lease from the attempt's answer, not from the interrupt, so that the lock has
	 * run out of its lease in the store by the time it returns.
	 */
	@Test
	void anInterruptedCallerWithAShortLeaseReturnsOnlyOnceTheLockTakenIsGoneFromTheStore() throws Exception {
		String key = "shortlease";
		CompletableFuture<Boolean> lockedAtReturn = new CompletableFuture<>();
		Outcome outcome = interruptedInItsAttempt(
				LockRequest.of(key).withWaitTime(NO_DEADLINE).withLeaseTime(Duration.ofMillis(500)),
				() -> lockedAtReturn.complete(this.memory.isLocked(key)));
		// The attempt is answered half a lease after the interrupt, and takes the key.
		CompletableFuture.delayedExecutor(250, TimeUnit.MILLISECONDS)
			.execute(() -> this.backend.attemptsAnswered.complete(null));
		outcome.assertInterruptedWithin(LEASE_BOUND, key);
		assertThat(lockedAtReturn.get()).as("the key still locked in the store when the caller returned").isFalse();
		assertGatedUntilTheReleasesAreAnswered(key);
	}

	/**
	 * A store whose locks live with the session ignores leases and frees nothing by
	 * itself: the caller waits for the give-back until its deadline, whatever its lease.
	 */
	@Test
	void anInterruptedCallerOfASessionStoreWaitsForItsGiveBackWhateverItsLease() throws Exception {
		this.backend = new HangingSessionStore(this.memory);
		this.lock = this.closeables.add(new DefaultDistributeLock(this.backend));
		String key = "session.giveback";
		CompletableFuture<Boolean> lockedAtReturn = new CompletableFuture<>();
		Outcome outcome = interruptedInItsAttempt(
				LockRequest.of(key).withWaitTime(BOUND).withLeaseTime(Duration.ofMillis(100)),
				() -> lockedAtReturn.complete(this.memory.isLocked(key)));
		this.backend.attemptsAnswered.complete(null);
		await().atMost(BOUND).until(() -> this.memory.isLocked(key));
		assertThat(catchThrowable(() -> outcome.ended.get(1, TimeUnit.SECONDS)))
			.as("the caller waits for its give-back past its lease")
			.isInstanceOf(TimeoutException.class);
		this.backend.releasesAnswered.complete(null);
		outcome.assertInterruptedWithin(WAIT_BOUND, key);
		assertThat(lockedAtReturn.get()).as("the key still locked in the store when the caller returned").isFalse();
	}

	/**
	 * A fair caller queued in the store, to whom a holder of this JVM hands the lock: the
	 * hand-over is the attempt in flight at the interrupt, and the caller waits for its
	 * give-back past one lease from its answer, as a claim that may be queued keeps its
	 * place in the store for the waiter lease, however short the lock's.
	 */
	@Test
	void anInterruptedFairCallerHandedTheLockWaitsForItsGiveBackPastItsLease() throws Exception {
		String key = "handover.shortlease";
		HangingHandOverStore handingOver = new HangingHandOverStore(this.memory, key);
		this.backend = handingOver;
		this.lock = this.closeables.add(new DefaultDistributeLock(this.backend));
		LockRequest fair = LockRequest.of(key).withFair(true);
		LockHandle held = this.lock.tryAcquire(fair.withWaitTime(Duration.ZERO)).orElseThrow();
		Outcome outcome = new Outcome();
		Thread caller = new Thread(() -> {
			Throwable thrown = catchThrowable(
					() -> this.lock.tryAcquire(fair.withWaitTime(NO_DEADLINE).withLeaseTime(Duration.ofMillis(500))));
			boolean lockedAtReturn = this.memory.isLocked(key);
			outcome.ended.complete(List.of(thrown, Thread.currentThread().isInterrupted(), lockedAtReturn));
		}, "interrupted-fair-caller");
		caller.setDaemon(true);
		caller.start();
		await().atMost(BOUND).until(() -> this.memory.queued(key) == 1);
		CompletableFuture<Throwable> closed = CompletableFuture.supplyAsync(() -> catchThrowable(held::close));
		assertThat(handingOver.handOverSent.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		caller.interrupt();
		// The hand-over is answered half a lease after the interrupt, and gives the
		// caller
		// the key.
		CompletableFuture.delayedExecutor(250, TimeUnit.MILLISECONDS)
			.execute(() -> handingOver.handOversAnswered.complete(null));
		await().atMost(BOUND).until(() -> this.memory.isLocked(key));
		assertThat(catchThrowable(() -> outcome.ended.get(LEASE.toMillis(), TimeUnit.MILLISECONDS)))
			.as("the caller waits for its give-back past its lease")
			.isInstanceOf(TimeoutException.class);
		this.backend.releasesAnswered.complete(null);
		outcome.assertInterruptedWithin(WAIT_BOUND, key);
		assertThat(outcome.ended.get().get(2)).as("the key still locked in the store when the caller returned")
			.isEqualTo(false);
		assertThat(assertTimeoutPreemptively(BOUND, () -> closed.get())).as("the holder's release").isNull();
		assertThat(this.lock.tryAcquire(key, Duration.ZERO, null)).as("the key is free")
			.hasValueSatisfying(LockHandle::close);
	}

	/**
	 * The store took the lock when it answered, not when the attempt was sent: a failed
	 * give-back is retried until one lease after the answer, not after the attempt began,
	 * or an answer that came late in the lease left the lock in the store until it ran
	 * out.
	 */
	@Test
	void aGiveBackAfterALateAnswerIsRetriedUntilOneLeaseAfterTheAnswer() throws Exception {
		String key = "lateanswer.giveback";
		FirstReleaseFails failing = new FirstReleaseFails(this.memory);
		this.backend = failing;
		this.lock = this.closeables.add(new DefaultDistributeLock(this.backend));
		Outcome outcome = interruptedInItsAttempt(
				LockRequest.of(key).withWaitTime(NO_DEADLINE).withLeaseTime(Duration.ofMillis(500)));
		// Answered, and the key taken, nearly a lease after the attempt was sent; the
		// give-back's first retry comes 50 ms after its failure.
		CompletableFuture.delayedExecutor(480, TimeUnit.MILLISECONDS)
			.execute(() -> this.backend.attemptsAnswered.complete(null));
		outcome.assertInterruptedWithin(LEASE_BOUND, key);
		await().atMost(BOUND).until(() -> failing.releases.get() == 2);
		assertThat(this.memory.isLocked(key)).as("the key, released by the retry").isFalse();
	}

	/**
	 * A store whose locks live with the session sets no lease end for a give-back: an
	 * attempt that failed is given back and tried again, as on any store.
	 */
	@Test
	void aFailedAttemptOnASessionStoreIsGivenBackAndTriedAgain() throws Exception {
		this.backend = new FirstAttemptFailsSessionStore(this.memory);
		this.lock = this.closeables.add(new DefaultDistributeLock(this.backend));
		this.backend.attemptsAnswered.complete(null);
		this.backend.releasesAnswered.complete(null);
		Optional<LockHandle> taken = this.lock.tryAcquire(LockRequest.of("session.failed").withWaitTime(BOUND));
		assertThat(taken).as("taken by the attempt after the failed one").isPresent();
		taken.get().close();
		assertThat(this.memory.isLocked("session.failed")).isFalse();
	}

	/** Starts a blocking call and interrupts it once its attempt is in flight. */
	private Outcome interruptedInItsAttempt(LockRequest request) throws InterruptedException {
		return interruptedInItsAttempt(request, () -> {
		});
	}

	/**
	 * Starts a blocking call and interrupts it once its attempt is in flight;
	 * {@code atReturn} runs on the caller's thread as the call has returned.
	 */
	private Outcome interruptedInItsAttempt(LockRequest request, Runnable atReturn) throws InterruptedException {
		Outcome outcome = new Outcome();
		Thread caller = new Thread(() -> {
			Throwable thrown = catchThrowable(() -> this.lock.tryAcquire(request));
			atReturn.run();
			outcome.ended.complete(List.of(thrown, Thread.currentThread().isInterrupted()));
		}, "interrupted-caller");
		caller.setDaemon(true);
		caller.start();
		assertThat(this.backend.attemptSent.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		caller.interrupt();
		return outcome;
	}

	private void assertGatedUntilTheStoreAnswers(String... keys) throws Exception {
		for (String key : keys) {
			await().atMost(BOUND).until(() -> this.memory.isLocked(key));
		}
		assertGatedUntilTheReleasesAreAnswered(keys);
	}

	private void assertGatedUntilTheReleasesAreAnswered(String... keys) throws Exception {
		assertThat(localLocks().size()).as("keys gated in this JVM until the store answers the give-back")
			.isEqualTo(keys.length);
		this.backend.releasesAnswered.complete(null);
		for (String key : keys) {
			await().atMost(BOUND).until(() -> !this.memory.isLocked(key));
		}
		await().atMost(BOUND).until(() -> localLocks().size() == 0);
		for (String key : keys) {
			assertThat(this.lock.tryAcquire(key, Duration.ZERO, null)).as("the key is free")
				.hasValueSatisfying(LockHandle::close);
		}
	}

	private LocalLocks localLocks() throws ReflectiveOperationException {
		// The table is private to the facade; its size shows the keys still gated.
		Field locks = DefaultDistributeLock.class.getDeclaredField("locks");
		locks.setAccessible(true);
		return (LocalLocks) locks.get(this.lock);
	}

	private static final class Outcome {

		/** What the call threw, and whether the caller's interrupt flag was set after. */
		final CompletableFuture<List<Object>> ended = new CompletableFuture<>();

		void assertInterruptedWithin(Duration bound, String key) {
			List<Object> outcome = assertTimeoutPreemptively(bound, () -> this.ended.get());
			assertThat(outcome.get(0)).as("not a store failure").isInstanceOf(InterruptedException.class);
			assertThat(((Throwable) outcome.get(0)).getMessage()).contains(key);
			assertThat(outcome.get(1)).as("the interrupt flag, cleared").isEqualTo(false);
		}

	}

	/**
	 * A {@link HangingStore} whose locks live with the session: it takes them with no
	 * lease of their own.
	 */
	static class HangingSessionStore extends HangingStore implements SessionLockBackend {

		HangingSessionStore(MemoryLockBackend memory) {
			super(memory, null);
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			return super.tryAcquire(claim, Duration.ofHours(1));
		}

		@Override
		public void addLossListener(LockLossListener listener) {
		}

		@Override
		public void removeLossListener(LockLossListener listener) {
		}

	}

	/**
	 * A {@link HangingStore} that answers the attempts on its one key at once and holds
	 * back a hand-over of it until {@link #handOversAnswered} completes.
	 */
	static final class HangingHandOverStore extends HangingStore implements HandOverLockBackend {

		final CountDownLatch handOverSent = new CountDownLatch(1);

		final CompletableFuture<Void> handOversAnswered = new CompletableFuture<>();

		HangingHandOverStore(MemoryLockBackend memory, String key) {
			super(memory, key);
		}

		@Override
		public CompletionStage<HandOver> handOver(Claim holder, Claim next, Duration lease) {
			this.handOverSent.countDown();
			return this.handOversAnswered.thenCompose((answered) -> this.delegate.release(holder)
				.thenCompose((released) -> this.delegate.tryAcquire(next, lease)
					.thenApply((taken) -> new HandOver(released, taken))));
		}

	}

	/**
	 * A {@link HangingSessionStore} whose first attempt fails, as after a lost answer.
	 */
	static final class FirstAttemptFailsSessionStore extends HangingSessionStore {

		private final AtomicInteger attempts = new AtomicInteger();

		FirstAttemptFailsSessionStore(MemoryLockBackend memory) {
			super(memory);
		}

		@Override
		protected <T> CompletionStage<T> sendAttempt(Supplier<CompletionStage<T>> attempt) {
			return (this.attempts.incrementAndGet() == 1)
					? CompletableFuture.failedFuture(new UncheckedIOException(new IOException("connection lost")))
					: super.sendAttempt(attempt);
		}

	}

	/**
	 * A {@link HangingStore} whose first release fails, as after a command timeout, and
	 * whose later ones are answered at once.
	 */
	static final class FirstReleaseFails extends HangingStore {

		final AtomicInteger releases = new AtomicInteger();

		FirstReleaseFails(MemoryLockBackend memory) {
			super(memory, null);
		}

		@Override
		protected <T> CompletionStage<T> sendRelease(Supplier<CompletionStage<T>> release) {
			return (this.releases.incrementAndGet() == 1)
					? CompletableFuture.failedFuture(new UncheckedIOException(new IOException("command timed out")))
					: release.get();
		}

	}

	/**
	 * Applies an attempt only once {@link #attemptsAnswered} completes, and answers a
	 * release only once {@link #releasesAnswered} completes, as a store in an outage
	 * does; given a key answered at once, takes no keys in one call and answers that
	 * key's attempts at once.
	 */
	static class HangingStore extends ForwardingMultiKeyLockBackend {

		final CountDownLatch attemptSent = new CountDownLatch(1);

		final CompletableFuture<Void> attemptsAnswered = new CompletableFuture<>();

		final CompletableFuture<Void> releasesAnswered = new CompletableFuture<>();

		private final @Nullable String answeredAtOnce;

		HangingStore(MemoryLockBackend memory, @Nullable String answeredAtOnce) {
			super(memory);
			this.answeredAtOnce = answeredAtOnce;
		}

		@Override
		public boolean batches(List<Claim> claims) {
			return this.answeredAtOnce == null && super.batches(claims);
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			return claim.key().equals(this.answeredAtOnce) ? this.delegate.tryAcquire(claim, lease)
					: super.tryAcquire(claim, lease);
		}

		@Override
		public String name() {
			return "hanging";
		}

		@Override
		protected <T> CompletionStage<T> sendAttempt(Supplier<CompletionStage<T>> attempt) {
			this.attemptSent.countDown();
			return this.attemptsAnswered.thenCompose((answered) -> attempt.get());
		}

		@Override
		protected <T> CompletionStage<T> sendRelease(Supplier<CompletionStage<T>> release) {
			return this.releasesAnswered.thenCompose((answered) -> release.get());
		}

	}

}
