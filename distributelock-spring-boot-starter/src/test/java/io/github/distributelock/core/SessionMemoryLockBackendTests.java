package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The session store's own machinery, which the tests that use it take for granted.
 */
class SessionMemoryLockBackendTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final int WAITS = 50;

	private final SessionMemoryLockBackend store = new SessionMemoryLockBackend();

	@AfterEach
	void close() {
		this.store.close();
	}

	/**
	 * Waits, which only their deadline ends in this store, are ended by the store's own
	 * timer, not by a thread started for each: on a machine of two cores the common pool
	 * starts one per task.
	 */
	@Test
	void manyWaitsEndedByTheirDeadlineShareOneTimerThread() throws Exception {
		assertThat(this.store.tryAcquire(new LockBackend.Claim("key", "holder"), WAIT)
			.toCompletableFuture()
			.join()
			.acquired()).isTrue();
		Deadline deadline = Deadline.after(Duration.ofMillis(500));
		List<CompletableFuture<Thread>> waits = new ArrayList<>();
		for (int i = 0; i < WAITS; i++) {
			LockBackend.Claim waiter = new LockBackend.Claim("key", "waiter-" + i);
			AcquireResult attempt = this.store.tryAcquire(waiter, WAIT).toCompletableFuture().join();
			assertThat(attempt.acquired()).isFalse();
			waits.add(this.store.awaitRelease(waiter, attempt, deadline)
				.thenApply((released) -> Thread.currentThread())
				.toCompletableFuture());
		}
		Set<Thread> ending = new HashSet<>();
		for (CompletableFuture<Thread> wait : waits) {
			ending.add(wait.get(WAIT.toSeconds(), TimeUnit.SECONDS));
		}
		// Ended before this thread looked, a wait runs the look on this thread.
		ending.remove(Thread.currentThread());
		assertThat(ending).as("threads that ended %d waits on their deadline", WAITS).hasSize(1);
	}

	/**
	 * Closing the store stops its timer thread, and fails the waits it would have ended
	 * instead of leaving them waiting for ever.
	 */
	@Test
	void closeStopsTheTimerThreadAndFailsTheWaitsLeft() throws Exception {
		LockBackend.Claim waiter = new LockBackend.Claim("key", "waiter");
		assertThat(this.store.tryAcquire(new LockBackend.Claim("key", "holder"), WAIT)
			.toCompletableFuture()
			.join()
			.acquired()).isTrue();
		AcquireResult attempt = this.store.tryAcquire(waiter, WAIT).toCompletableFuture().join();
		// A wait that ended before this thread looked runs the look on this thread:
		// looked
		// at again, a few times at most.
		Thread timer = Thread.currentThread();
		for (int round = 0; round < 5 && timer == Thread.currentThread(); round++) {
			timer = this.store.awaitRelease(waiter, attempt, Deadline.after(Duration.ofMillis(200)))
				.thenApply((released) -> Thread.currentThread())
				.toCompletableFuture()
				.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		}
		assertThat(timer).as("the thread that ended the wait").isNotSameAs(Thread.currentThread());
		CompletableFuture<Void> left = this.store.awaitRelease(waiter, attempt, Deadline.after(WAIT))
			.toCompletableFuture();
		this.store.close();
		assertThat(left).isCompletedExceptionally();
		timer.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(timer.isAlive()).as("the timer thread 10 s after close()").isFalse();
	}

}
