package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.LockServiceShutdownException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A lock service built by hand and closed directly, outside any application context,
 * tells the acquisitions its close ends, and those it refuses afterwards, that it was
 * closed, not that an application context is closing.
 */
class ClosedDirectlyTests {

	private static final String CLOSED = ": the lock service is shutting down (DefaultDistributeLock.close() was called)";

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	@Test
	void aWaitEndedAndAnAcquisitionRefusedByADirectCloseSaySo() throws Exception {
		DefaultDistributeLock other = this.closeables.add(new DefaultDistributeLock(this.store));
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(this.store));
		LockHandle held = this.closeables.add(other.tryAcquire("closed.waiting", Duration.ZERO, null).orElseThrow());
		CompletableFuture<Optional<LockHandle>> waiting = lock
			.tryAcquireAsync(LockRequest.of("closed.waiting").withWaitTime(Duration.ofSeconds(30)));
		lock.close();
		// The wait would last 30 s: done now means close() ended it.
		assertThat(waiting).isCompletedExceptionally();
		assertThat(waiting.handle((handle, failure) -> failure).join()).isInstanceOf(LockServiceShutdownException.class)
			.hasMessage("Could not acquire lock 'closed.waiting' in memory" + CLOSED);
		assertThatExceptionOfType(LockServiceShutdownException.class)
			.isThrownBy(() -> lock.tryAcquire("closed.after", Duration.ZERO, null))
			.withMessage("Could not acquire lock 'closed.after' in memory" + CLOSED);
		held.close();
		assertThat(this.store.isLocked("closed.waiting")).isFalse();
	}

}
