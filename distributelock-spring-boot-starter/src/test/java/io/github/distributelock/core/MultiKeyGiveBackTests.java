package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A multi-key request taken one key after the other that is not taken whole leaves no key
 * in the store, also with a minimum hold: the keys it took are given back at once, not
 * kept for the minimum hold as a closed handle's are; a key the thread held already keeps
 * that hold.
 */
class MultiKeyGiveBackTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));

	private final DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.store));

	private final LockRequest request = LockRequest
		.all(LockRequest.of("give-back.a"), LockRequest.of("give-back.b").withMode(LockMode.WRITE),
				LockRequest.of("give-back.c"))
		.withMinimumHold(Duration.ofMinutes(5));

	@Test
	void aBlockingRequestNotTakenWholeLeavesNoKeyForItsMinimumHold() throws Exception {
		try (LockHandle reading = this.other.tryAcquire(LockRequest.of("give-back.c")).orElseThrow()) {
			assertThat(this.lock.tryAcquire(this.request)).isEmpty();
			assertThat(this.store.isLocked("give-back.a") || this.store.isLocked("give-back.b"))
				.as("a key the request took, kept for its minimum hold")
				.isFalse();
		}
		assertThat(this.lock.heldLocks()).isEmpty();
	}

	@Test
	void aNonBlockingRequestNotTakenWholeLeavesNoKeyForItsMinimumHold() throws Exception {
		try (LockHandle reading = this.other.tryAcquire(LockRequest.of("give-back.c")).orElseThrow()) {
			assertThat(this.lock.tryAcquireAsync(this.request)).succeedsWithin(BOUND).isEqualTo(Optional.empty());
			assertThat(this.store.isLocked("give-back.a") || this.store.isLocked("give-back.b"))
				.as("a key the request took, kept for its minimum hold")
				.isFalse();
		}
		assertThat(this.lock.heldLocks()).isEmpty();
	}

	/**
	 * The keys a blocking request took are given back together, the last taken first: one
	 * after the other, a store that does not answer would keep the caller a client
	 * timeout per key past its deadline. The store holds each answer until all three
	 * give-backs have arrived, or for 1 s, so one at a time each arrives alone.
	 */
	@Test
	void aBlockingRequestNotTakenWholeSendsItsGiveBacksTogetherLastTakenFirst() throws Exception {
		HeldAnswers slowReleases = new HeldAnswers(this.store, 3);
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(slowReleases));
		try (LockHandle busy = this.other.tryAcquire(LockRequest.of("give-back.d")).orElseThrow()) {
			LockRequest fourKeys = LockRequest.all(LockRequest.of("give-back.c"),
					LockRequest.of("give-back.a").withMode(LockMode.WRITE), LockRequest.of("give-back.d"),
					LockRequest.of("give-back.b"));
			assertThat(lock.tryAcquire(fourKeys)).isEmpty();
		}
		assertThat(slowReleases.arrived).containsExactly("give-back.c", "give-back.b", "give-back.a");
		assertThat(slowReleases.arrivedBeforeTheFirstAnswer).as("give-backs sent before the first was answered")
			.hasValue(3);
		assertThat(this.store.isLocked("give-back.a") || this.store.isLocked("give-back.b")
				|| this.store.isLocked("give-back.c"))
			.isFalse();
	}

	/**
	 * A give-back whose release is on its way to the store at the deadline is one round
	 * trip: the caller waits for its answer, so that the request leaves nothing in the
	 * store when it returns, also when the store answers only well past the deadline.
	 */
	@Test
	void aRequestNotTakenWholeWaitsPastItsDeadlineForGiveBacksOnTheirWay() throws Exception {
		LockBackend slowReleases = new ForwardingLockBackend(this.store) {

			@Override
			public CompletionStage<Boolean> release(Claim claim) {
				return CompletableFuture
					.supplyAsync(() -> null, CompletableFuture.delayedExecutor(500, TimeUnit.MILLISECONDS))
					.thenCompose((answered) -> this.delegate.release(claim));
			}

		};
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(slowReleases));
		try (LockHandle busy = this.other.tryAcquire(LockRequest.of("give-back.c")).orElseThrow()) {
			LockRequest twoKeys = LockRequest.all(LockRequest.of("give-back.a"), LockRequest.of("give-back.c"))
				.withWaitTime(Duration.ofMillis(100));
			assertThat(lock.tryAcquire(twoKeys)).isEmpty();
			assertThat(this.store.isLocked("give-back.a")).as("the key taken, given back before the caller returned")
				.isFalse();
			assertThat(lock.tryAcquireAsync(twoKeys)).succeedsWithin(BOUND).isEqualTo(Optional.empty());
			assertThat(this.store.isLocked("give-back.a")).as("the key taken, given back before the future completed")
				.isFalse();
		}
	}

	/**
	 * Holds the answers of releases until {@code together} of them have arrived, or for 1
	 * s each.
	 */
	private static final class HeldAnswers extends ForwardingLockBackend {

		private final int together;

		final List<String> arrived = new CopyOnWriteArrayList<>();

		final AtomicInteger arrivedBeforeTheFirstAnswer = new AtomicInteger();

		private final List<Runnable> held = new CopyOnWriteArrayList<>();

		HeldAnswers(LockBackend delegate, int together) {
			super(delegate);
			this.together = together;
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			CompletableFuture<Boolean> answer = new CompletableFuture<>();
			this.delegate.release(claim).whenComplete((released, failure) -> {
				Runnable answering = () -> {
					this.arrivedBeforeTheFirstAnswer.compareAndSet(0, this.arrived.size());
					answer.complete(released);
				};
				this.held.add(answering);
				this.arrived.add(claim.key());
				if (this.arrived.size() == this.together) {
					this.held.forEach(Runnable::run);
				}
				else {
					CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS).execute(answering);
				}
			});
			return answer;
		}

	}

	@Test
	void aKeyTheThreadHeldKeepsItsHoldWhenTheRequestIsNotTakenWhole() throws Exception {
		try (LockHandle reading = this.other.tryAcquire(LockRequest.of("give-back.c")).orElseThrow()) {
			try (LockHandle outer = this.lock.tryAcquire("give-back.a", Duration.ZERO, null).orElseThrow()) {
				assertThat(this.lock.tryAcquire(this.request)).isEmpty();
				assertThat(outer.isHeld()).isTrue();
				assertThat(this.store.isLocked("give-back.a")).isTrue();
				assertThat(this.store.isLocked("give-back.b")).isFalse();
			}
		}
		assertThat(this.store.isLocked("give-back.a")).isFalse();
		assertThat(this.lock.heldLocks()).isEmpty();
	}

}
