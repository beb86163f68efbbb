package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.LockServiceShutdownException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Once {@code close()} has begun, later acquisitions fail with a
 * {@link LockServiceShutdownException}, re-entries of a lock the thread holds included:
 * while the shutdown waited for the acquisitions in flight, a thread re-entering its lock
 * got a new handle, for a lock the shutdown was about to release, although every other
 * call was refused. The shutdown is the answer before a kind the held lock does not
 * admit.
 */
class ReentryDuringShutdownTests {

	private static final long BOUND_SECONDS = 10;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	ReentryDuringShutdownTests() {
		this.closeables.add(this.threads::shutdownNow);
	}

	@Test
	void aThreadReEnteringItsLockWhileTheShutdownDrainsIsRefused() throws Exception {
		HeldBackAnswers backend = new HeldBackAnswers(this.store, "reentry.in-flight");
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend));
		lock.tryAcquire("reentry.a", Duration.ZERO, null).orElseThrow();
		lock.tryAcquire("reentry.b", Duration.ZERO, null).orElseThrow();
		LockRequest read = LockRequest.of("reentry.r").withMode(LockMode.READ).withWaitTime(Duration.ZERO);
		lock.tryAcquire(read).orElseThrow();
		// An acquisition whose answer the store holds back keeps close() in its drain.
		Future<Optional<LockHandle>> inFlight = this.threads
			.submit(() -> lock.tryAcquire("reentry.in-flight", Duration.ofSeconds(BOUND_SECONDS), null));
		assertThat(backend.applied.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("attempt applied").isTrue();
		Future<?> closing = this.threads.submit(() -> lock.close());
		try {
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> inFlight.get(BOUND_SECONDS, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockServiceShutdownException.class);
			assertThat(closing).as("close(), draining").isNotDone();
			assertThatExceptionOfType(LockServiceShutdownException.class)
				.isThrownBy(() -> lock.tryAcquire("reentry.a", Duration.ZERO, null));
			assertThatExceptionOfType(LockServiceShutdownException.class).isThrownBy(
					() -> lock.tryAcquire(LockRequest.all(LockRequest.of("reentry.a"), LockRequest.of("reentry.b"))));
			assertThatExceptionOfType(LockServiceShutdownException.class)
				.as("the write lock of a key the thread holds for reading")
				.isThrownBy(() -> lock.tryAcquire(read.withMode(LockMode.WRITE)));
		}
		finally {
			backend.answer.complete(null);
		}
		closing.get(BOUND_SECONDS, TimeUnit.SECONDS);
		assertThat(this.store.isLocked("reentry.a")).isFalse();
		assertThat(this.store.isLocked("reentry.b")).isFalse();
		assertThat(this.store.isLocked("reentry.r")).isFalse();
		assertThat(this.store.isLocked("reentry.in-flight")).isFalse();
	}

}
