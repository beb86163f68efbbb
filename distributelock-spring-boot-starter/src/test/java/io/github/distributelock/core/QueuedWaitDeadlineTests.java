package io.github.distributelock.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A caller whose claim waits in the store's queue (fair, write) and whose wait ends at
 * its deadline makes one store call past the deadline, the one that takes its claim out
 * of the queue, not a last attempt and then that one. A reader behind a writer or a
 * permit caller, refused without a place in the queue (as on Redis and JDBC), has nothing
 * to take out: its one call past the deadline is a last attempt, as an exclusive
 * caller's.
 */
class QueuedWaitDeadlineTests {

	private static final Duration WAIT = Duration.ofMillis(200);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend memory = new MemoryLockBackend();

	static Stream<Arguments> waitingKinds() {
		return Stream.of(
				Arguments.of("fair", (UnaryOperator<LockRequest>) (request) -> request.withFair(true),
						(UnaryOperator<LockRequest>) (request) -> request.withFair(true), "release"),
				Arguments.of("write behind a writer",
						(UnaryOperator<LockRequest>) (request) -> request.withMode(LockMode.WRITE),
						(UnaryOperator<LockRequest>) (request) -> request.withMode(LockMode.WRITE), "release"),
				Arguments.of("read behind a writer",
						(UnaryOperator<LockRequest>) (request) -> request.withMode(LockMode.WRITE),
						(UnaryOperator<LockRequest>) (request) -> request.withMode(LockMode.READ), "acquire"),
				Arguments.of("one permit of one", (UnaryOperator<LockRequest>) (request) -> request.withPermits(1),
						(UnaryOperator<LockRequest>) (request) -> request.withPermits(1), "acquire"));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("waitingKinds")
	void aWaiterMakesOneStoreCallPastItsDeadline(String kind, UnaryOperator<LockRequest> holder,
			UnaryOperator<LockRequest> waiter, String callPastTheDeadline) throws Exception {
		Recording recording = new Recording(this.memory);
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(recording));
		DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.memory));
		try (LockHandle held = other.tryAcquire(holder.apply(LockRequest.of("queued.deadline"))).orElseThrow()) {
			Deadline deadline = Deadline.after(WAIT);
			assertThat(lock.tryAcquire(waiter.apply(LockRequest.of("queued.deadline")).withWaitTime(WAIT))).isEmpty();
			assertThat(recording.callsAfter(deadline)).as("store calls past the deadline")
				.containsExactly(callPastTheDeadline + " queued.deadline");
			assertThat(held.isHeld()).isTrue();
		}
		assertThat(this.memory.isLocked("queued.deadline")).isFalse();
	}

	/**
	 * The exit from the store's queue of a waiter that gave up is retried as long as its
	 * place there lives, not only as long as its lock's lease: a place left at the head
	 * of the queue holds up every waiter behind it.
	 */
	@ParameterizedTest(name = "{0}")
	@MethodSource("queuedKinds")
	void aQueueExitThatFailsIsRetriedAsLongAsThePlaceLives(String kind, UnaryOperator<LockRequest> claim)
			throws Exception {
		String key = "queued.exit." + kind.replace(' ', '-');
		FailingReleases failing = new FailingReleases(this.memory);
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(failing));
		DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.memory));
		try (LockHandle held = other.tryAcquire(claim.apply(LockRequest.of(key))).orElseThrow()) {
			// A lease of 300 ms: the retries, 50 ms apart and doubling, pass it by the
			// fourth.
			assertThat(lock
				.tryAcquire(claim.apply(LockRequest.of(key)).withWaitTime(WAIT).withLeaseTime(Duration.ofMillis(300))))
				.isEmpty();
			assertThat(this.memory.queued(key)).as("the place left in the queue").isEqualTo(1);
			await().atMost(Duration.ofSeconds(5)).until(() -> failing.releases.get() >= 6);
			failing.answering = true;
			await().atMost(Duration.ofSeconds(5)).until(() -> this.memory.queued(key) == 0);
			assertThat(held.isHeld()).isTrue();
		}
	}

	static Stream<Arguments> queuedKinds() {
		return Stream.of(Arguments.of("fair", (UnaryOperator<LockRequest>) (request) -> request.withFair(true)),
				Arguments.of("write", (UnaryOperator<LockRequest>) (request) -> request.withMode(LockMode.WRITE)));
	}

	/** Fails every release, as a store in an outage does, until {@link #answering}. */
	static final class FailingReleases extends ForwardingLockBackend {

		final AtomicInteger releases = new AtomicInteger();

		volatile boolean answering;

		FailingReleases(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			this.releases.incrementAndGet();
			return this.answering ? this.delegate.release(claim)
					: CompletableFuture.failedFuture(new UncheckedIOException(new IOException("command timed out")));
		}

	}

	/** Passes every call on and records those that claim or release a key. */
	static final class Recording extends ForwardingLockBackend {

		private final List<Call> calls = new CopyOnWriteArrayList<>();

		Recording(LockBackend delegate) {
			super(delegate);
		}

		List<String> callsAfter(Deadline deadline) {
			return this.calls.stream()
				.filter((call) -> call.nanoTime() - deadline.nanoTime() >= 0)
				.map(Call::what)
				.toList();
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			this.calls.add(new Call(System.nanoTime(), "acquire " + claim.key()));
			return this.delegate.tryAcquire(claim, lease);
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			this.calls.add(new Call(System.nanoTime(), "release " + claim.key()));
			return this.delegate.release(claim);
		}

	}

	record Call(long nanoTime, String what) {
	}

}
