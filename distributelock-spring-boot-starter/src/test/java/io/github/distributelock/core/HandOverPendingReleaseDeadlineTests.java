package io.github.distributelock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
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
 * A fair waiter of this JVM to whom its holder hands the lock over must first send the
 * releases of its own earlier attempts that are still retried (they check only the owner,
 * which the hand-over gives the lock to). When the store does not answer them, the waiter
 * still ends by its deadline, and the holder's release, which the hand-over also is,
 * still releases the holder's lock.
 */
class HandOverPendingReleaseDeadlineTests {

	private static final String KEY = "handover.pending";

	private static final Duration WAIT = Duration.ofMillis(1500);

	/** The wait, plus room for a loaded machine. */
	private static final Duration WAIT_BOUND = WAIT.plusSeconds(2);

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend memory = new MemoryLockBackend();

	private final FlakyWaiterReleases backend = new FlakyWaiterReleases(this.memory);

	private final DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.backend));

	@AfterEach
	void letTheStoreAnswer() {
		this.backend.hang.complete(null);
	}

	@Test
	void aWaiterHandedTheLockWhileItsRetriedReleaseHangsEndsByItsDeadline() throws Exception {
		LockRequest fair = LockRequest.of(KEY).withFair(true);
		LockHandle held = this.lock.tryAcquire(fair.withWaitTime(Duration.ZERO)).orElseThrow();
		CompletableFuture<Throwable> waiter = new CompletableFuture<>();
		Thread waiting = new Thread(() -> waiter.complete(catchThrowable(() -> {
			Optional<LockHandle> taken = this.lock.tryAcquire(fair.withWaitTime(WAIT));
			taken.ifPresent(LockHandle::close);
			throw new AssertionError("Acquired " + taken);
		})), "fair-waiter");
		waiting.setDaemon(true);
		waiting.start();
		// Its first attempt failed, and so did the give-back, also when the next attempt
		// sent it first; that attempt queued the waiter, and the give-back's retry hangs.
		await().atMost(BOUND).until(() -> this.backend.hangingReleases.get() == 1);
		assertThat(this.memory.queued(KEY)).isEqualTo(1);
		CompletableFuture<Throwable> closed = CompletableFuture.supplyAsync(() -> catchThrowable(held::close));
		Throwable thrown = assertTimeoutPreemptively(WAIT_BOUND, () -> waiter.get());
		assertThat(thrown).isInstanceOf(DistributeLockException.class).rootCause().hasMessage("command timed out");
		assertThat(assertTimeoutPreemptively(WAIT_BOUND, () -> closed.get())).as("the holder's release").isNull();
		assertThat(held.isHeld()).isFalse();
		assertThat(this.memory.holders(KEY)).as("the holder's lock, released in the store").isZero();
		assertThat(localLocks().size()).as("the key gated here until the waiter's releases are answered").isEqualTo(1);
		this.backend.hang.complete(null);
		await().atMost(BOUND).until(() -> localLocks().size() == 0 && this.memory.queued(KEY) == 0);
		assertThat(this.lock.tryAcquire(fair.withWaitTime(Duration.ZERO))).hasValueSatisfying(LockHandle::close);
	}

	private LocalLocks localLocks() throws ReflectiveOperationException {
		// The table is private to the facade; its size shows the key still gated.
		Field locks = DefaultDistributeLock.class.getDeclaredField("locks");
		locks.setAccessible(true);
		return (LocalLocks) locks.get(this.lock);
	}

	/**
	 * Hands over as a release and an attempt; takes the first attempt (the holder's) as
	 * it comes, fails the next one (the waiter's) after applying it, fails the waiter's
	 * releases until its attempt after that, and holds its later ones until {@link #hang}
	 * completes, as a store in an outage does.
	 */
	static final class FlakyWaiterReleases extends ForwardingLockBackend implements HandOverLockBackend {

		final CompletableFuture<Void> hang = new CompletableFuture<>();

		final AtomicInteger hangingReleases = new AtomicInteger();

		private final AtomicInteger attempts = new AtomicInteger();

		private volatile @Nullable String holder;

		private volatile boolean waiterQueued;

		FlakyWaiterReleases(MemoryLockBackend memory) {
			super(memory);
		}

		@Override
		public String name() {
			return "flaky";
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			int attempt = this.attempts.getAndIncrement();
			if (attempt == 0) {
				this.holder = claim.owner();
			}
			else if (attempt == 2) {
				this.waiterQueued = true;
			}
			CompletionStage<AcquireResult> applied = this.delegate.tryAcquire(claim, lease);
			return (attempt == 1) ? applied.thenCompose((result) -> failed()) : applied;
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			if (this.hang.isDone() || claim.owner().equals(this.holder)) {
				return this.delegate.release(claim);
			}
			if (!this.waiterQueued) {
				return failed();
			}
			this.hangingReleases.incrementAndGet();
			return this.hang.thenCompose((answered) -> this.delegate.release(claim));
		}

		@Override
		public CompletionStage<HandOver> handOver(Claim holder, Claim next, Duration lease) {
			return this.delegate.release(holder)
				.thenCompose((released) -> this.delegate.tryAcquire(next, lease)
					.thenApply((taken) -> new HandOver(released, taken)));
		}

		private static <T> CompletableFuture<T> failed() {
			return CompletableFuture.failedFuture(new UncheckedIOException(new IOException("command timed out")));
		}

	}

}
