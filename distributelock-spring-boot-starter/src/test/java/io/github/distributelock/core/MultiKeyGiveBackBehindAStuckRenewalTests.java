package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A multi-key request taken key by key that misses a key at its deadline returns by its
 * deadline plus one round trip, also when the give-back of a key it took waits for a
 * renewal of that key stuck on a store that does not answer: the give-back goes on in the
 * background, the key stays held by this instance until the store has answered, and it is
 * gone from the store once it has. Before, the caller waited for the stuck renewal until
 * the watchdog's lease ran out (here minutes, 30 s by default).
 */
@ExtendWith(OutputCaptureExtension.class)
class MultiKeyGiveBackBehindAStuckRenewalTests {

	/**
	 * Far longer than the test: a caller that waits for the stuck renewal waits this
	 * long.
	 */
	private static final Duration WATCHDOG_LEASE = Duration.ofMinutes(5);

	private static final Duration WAIT = Duration.ofSeconds(1);

	/** The wait, plus generous room for a loaded machine. */
	private static final Duration BOUND = Duration.ofSeconds(10);

	private static final String TAKEN = "stuck-renewal.all.a";

	private static final String BUSY = "stuck-renewal.all.b";

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	/** Not a {@link MultiKeyLockBackend}: the keys are taken one after the other. */
	private final StuckRenewal backend = new StuckRenewal(this.store);

	private final ManualTicks scheduler = new ManualTicks();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	private final DefaultDistributeLock lock;

	private final DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.store));

	private final LockRequest both = LockRequest.all(LockRequest.of(TAKEN), LockRequest.of(BUSY)).withWaitTime(WAIT);

	MultiKeyGiveBackBehindAStuckRenewalTests() {
		this.closeables.add(this.scheduler::shutdownNow);
		this.closeables.add(this.threads::shutdownNow);
		this.lock = this.closeables.add(
				new DefaultDistributeLock(this.backend, WATCHDOG_LEASE, false, LockEventListener.NONE, this.scheduler));
		// Before the lock is closed, however the test ends.
		this.closeables.add(() -> this.backend.answer.complete(true));
	}

	@Test
	void aBlockingRequestReturnsByItsDeadlineWhileTheGiveBackWaitsForAStuckRenewal(CapturedOutput output)
			throws Exception {
		try (LockHandle busy = this.other.tryAcquire(BUSY, Duration.ZERO, null).orElseThrow()) {
			Future<Optional<LockHandle>> call = this.threads.submit(() -> this.lock.tryAcquire(this.both));
			renewalOfTheKeyTakenStuck();
			assertThat(call.get(BOUND.toMillis(), TimeUnit.MILLISECONDS)).as("the request, past its deadline")
				.isEmpty();
			assertGivenBackOnceTheStoreAnswers(output);
		}
	}

	@Test
	void aNonBlockingRequestEndsByItsDeadlineWhileTheGiveBackWaitsForAStuckRenewal(CapturedOutput output)
			throws Exception {
		try (LockHandle busy = this.other.tryAcquire(BUSY, Duration.ZERO, null).orElseThrow()) {
			CompletableFuture<Optional<LockHandle>> call = this.lock.tryAcquireAsync(this.both);
			renewalOfTheKeyTakenStuck();
			assertThat(call).as("the request, past its deadline").succeedsWithin(BOUND).isEqualTo(Optional.empty());
			assertGivenBackOnceTheStoreAnswers(output);
		}
	}

	/**
	 * Ticks the watchdog once the request holds its first key and waits for the second,
	 * until the renewal of the first is sent, and stuck.
	 */
	private void renewalOfTheKeyTakenStuck() {
		await().atMost(BOUND).until(() -> this.store.isLocked(TAKEN));
		await().atMost(BOUND).pollInterval(Duration.ofMillis(20)).until(() -> {
			this.scheduler.tick();
			return this.backend.renewalSent.getCount() == 0;
		});
	}

	private void assertGivenBackOnceTheStoreAnswers(CapturedOutput output) throws Exception {
		assertThat(this.store.isLocked(TAKEN)).as("the key taken, its release behind the stuck renewal").isTrue();
		assertThat(this.lock.tryAcquire(TAKEN, Duration.ZERO, null))
			.as("the key taken, held by this instance until the store answers")
			.isEmpty();
		assertThat(output).containsPattern("WARN .*'" + TAKEN + "'.*goes on in the background");
		this.backend.answer.complete(true);
		await().atMost(BOUND).until(() -> !this.store.isLocked(TAKEN));
		await().atMost(BOUND).until(() -> this.lock.heldLocks().isEmpty());
		assertThat(this.lock.tryAcquire(TAKEN, Duration.ZERO, null)).as("the key, free again")
			.hasValueSatisfying(LockHandle::close);
	}

}
