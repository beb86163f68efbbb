package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A blocking call ends at its deadline also when the lock service's scheduler, whose
 * timers end its waits at the local gate and its pauses after a store failure, cannot run
 * them in time: its threads run the stages of non-blocking calls, which may block (as the
 * caller's own next acquisition), and a scheduler the application gives may be busy with
 * other work. The caller, who waits anyway, ends such a wait itself once it is due.
 */
class BlockingCallDeadlineTests {

	private static final Duration WAIT = Duration.ofMillis(300);

	/** Far longer than any wait here: a call that reaches it waited for the holder. */
	private static final long BOUND_SECONDS = 10;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	@Test
	void blockingCallsInStagesOfNonBlockingCallsOnEveryThreadOfTheSchedulerEndAtTheirDeadline() throws Exception {
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));
		LockHandle busy = lock.tryAcquire("deadline.busy", Duration.ZERO, null).orElseThrow();
		LockHandle next = lock.tryAcquire("deadline.next", Duration.ZERO, null).orElseThrow();
		List<CompletableFuture<String>> stages = new ArrayList<>();
		try {
			// Each ends at the local gate on a thread of the scheduler (two of them), and
			// the caller's stage then blocks that thread in an acquisition of its own:
			// the
			// first from 1 s to 2.5 s, the second from 2 s, so that the first one's
			// deadline comes while both are blocked. Whole seconds, so that the stages
			// are
			// attached before the scheduler ends the waits even when this thread is held
			// up for a while, or they would run on this thread.
			Duration blockedFor = Duration.ofMillis(1500);
			for (int i = 1; i <= 2; i++) {
				stages.add(lock.tryAcquireAsync(LockRequest.of("deadline.busy").withWaitTime(Duration.ofSeconds(i)))
					.thenApply((none) -> Thread.currentThread().getName() + " took the next key: "
							+ takes(lock, LockRequest.of("deadline.next").withWaitTime(blockedFor))));
			}
			for (CompletableFuture<String> stage : stages) {
				assertThat(stage.get(BOUND_SECONDS, TimeUnit.SECONDS))
					.isEqualTo("distributelock-watchdog took the next key: false");
			}
		}
		finally {
			next.close();
			busy.close();
		}
	}

	@Test
	void aBlockingCallWaitingAtTheLocalGateEndsAtItsDeadlineWhenTheSchedulerIsLate() throws Exception {
		DefaultDistributeLock lock = lateScheduler(this.store);
		LockHandle held = lock.tryAcquire("deadline.gate", Duration.ZERO, null).orElseThrow();
		try {
			CompletableFuture<Boolean> waiting = CompletableFuture
				.supplyAsync(() -> takes(lock, LockRequest.of("deadline.gate").withWaitTime(WAIT)));
			assertThat(waiting.get(BOUND_SECONDS, TimeUnit.SECONDS)).isFalse();
			assertThat(lock.waitingAtGate("deadline.gate")).isZero();
		}
		finally {
			held.close();
		}
		assertThat(this.store.isLocked("deadline.gate")).isFalse();
	}

	@Test
	void aBlockingMultiKeyCallWaitingAtALocalGateEndsAtItsDeadlineWhenTheSchedulerIsLate() throws Exception {
		DefaultDistributeLock lock = lateScheduler(this.store);
		LockHandle held = lock.tryAcquire("deadline.b", Duration.ZERO, null).orElseThrow();
		try {
			CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> takes(lock,
					LockRequest.all(LockRequest.of("deadline.a"), LockRequest.of("deadline.b")).withWaitTime(WAIT)));
			assertThat(waiting.get(BOUND_SECONDS, TimeUnit.SECONDS)).isFalse();
		}
		finally {
			held.close();
		}
		assertThat(this.store.isLocked("deadline.a")).isFalse();
		assertThat(this.store.isLocked("deadline.b")).isFalse();
	}

	@Test
	void aBlockingCallPausingAfterAStoreFailureEndsAtItsDeadlineWhenTheSchedulerIsLate() throws Exception {
		AcquisitionBackOffTests.FailingAttempts backend = new AcquisitionBackOffTests.FailingAttempts(this.store);
		backend.failAttempts = true;
		DefaultDistributeLock lock = lateScheduler(backend);
		CompletableFuture<Boolean> waiting = CompletableFuture
			.supplyAsync(() -> takes(lock, LockRequest.of("deadline.failing").withWaitTime(WAIT)));
		assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
			.isThrownBy(() -> waiting.get(BOUND_SECONDS, TimeUnit.SECONDS))
			.withCauseInstanceOf(DistributeLockException.class);
		assertThat(backend.failedAttempts.get()).isGreaterThan(1);
		assertThat(this.store.isLocked("deadline.failing")).isFalse();
	}

	/** A lock service whose scheduler's timers do not fire while the test runs. */
	private DefaultDistributeLock lateScheduler(LockBackend backend) {
		return this.closeables.add(new DefaultDistributeLock(backend, Duration.ofSeconds(30), false,
				LockEventListener.NONE, new InlineScheduler()));
	}

	private static boolean takes(DefaultDistributeLock lock, LockRequest request) {
		Optional<LockHandle> handle;
		try {
			handle = lock.tryAcquire(request);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		handle.ifPresent(LockHandle::close);
		return handle.isPresent();
	}

}
