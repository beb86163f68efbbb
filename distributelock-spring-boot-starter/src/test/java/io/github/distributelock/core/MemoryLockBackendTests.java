package io.github.distributelock.core;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The in-memory reference store's own machinery, which its contract tests take for
 * granted.
 */
class MemoryLockBackendTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final MemoryLockBackend store = new MemoryLockBackend();

	/**
	 * A wait that nothing ends before its deadline is ended by the store's own timer, not
	 * by a thread started for it: on a machine of two cores the common pool starts one
	 * per task, thousands a second when waiters attempt often.
	 */
	@Test
	void waitsEndedByTheirDeadlineShareOneTimerThread() throws Exception {
		LockBackend.Claim holder = new LockBackend.Claim("key", "holder");
		LockBackend.Claim waiter = new LockBackend.Claim("key", "waiter");
		assertThat(this.store.tryAcquire(holder, WAIT).toCompletableFuture().join().acquired()).isTrue();
		Set<Thread> ending = new HashSet<>();
		for (int i = 0; i < 3; i++) {
			AcquireResult attempt = this.store.tryAcquire(waiter, WAIT).toCompletableFuture().join();
			assertThat(attempt.acquired()).isFalse();
			CompletableFuture<Thread> ended = this.store
				.awaitRelease(waiter, attempt, Deadline.after(Duration.ofMillis(200)))
				.thenApply((released) -> Thread.currentThread())
				.toCompletableFuture();
			ending.add(ended.get(WAIT.toSeconds(), TimeUnit.SECONDS));
		}
		// Ended before this thread looked, a wait runs the look on this thread.
		ending.remove(Thread.currentThread());
		assertThat(ending).as("threads that ended the waits on their deadline").hasSize(1);
	}

}
