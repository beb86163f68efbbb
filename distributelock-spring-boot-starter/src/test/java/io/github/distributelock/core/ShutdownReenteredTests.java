package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.LockServiceShutdownException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shutdown ends the waiting non-blocking acquisitions by completing their futures on
 * the closing thread, where the callers' own stages run: one that closes the lock service
 * again (an application that shuts down when a lock cannot be had) returns at once, as a
 * close re-entered from the first does, instead of waiting for the first close, which
 * waits for it.
 */
class ShutdownReenteredTests {

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	@Test
	void aCloseCalledByAStageOfAnAcquisitionTheShutdownEndsReturns() throws Exception {
		DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.store));
		DefaultDistributeLock lock = new DefaultDistributeLock(this.store);
		LockHandle held = other.tryAcquire("reentered.close", Duration.ZERO, null).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = lock
			.tryAcquireAsync(LockRequest.of("reentered.close").withWaitTime(Duration.ofSeconds(30)));
		CompletableFuture<Void> closedAgain = waiting.handle((handle, failure) -> {
			lock.close();
			return null;
		});
		Thread closing = new Thread(lock::close, "closing");
		closing.setDaemon(true);
		closing.start();
		closing.join(TimeUnit.SECONDS.toMillis(10));
		assertThat(closing.isAlive()).as("close() still running after 10 s").isFalse();
		assertThat(closedAgain).isDone();
		assertThat(waiting).isCompletedExceptionally();
		assertThat(waiting.handle((handle, failure) -> failure).join())
			.isInstanceOf(LockServiceShutdownException.class);
		held.close();
	}

}
