package io.github.distributelock.core;

import java.time.Duration;
import java.util.Optional;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;

import static org.awaitility.Awaitility.await;

/**
 * Acquisitions for lambdas, such as the tasks of other callers, which cannot throw
 * {@link InterruptedException}.
 */
public final class Locks {

	private Locks() {
	}

	/**
	 * Waits, at most 10 s, until {@code callers} callers of {@code lock} wait at its gate
	 * for {@code key}, behind a caller of the same instance that holds it.
	 */
	public static void awaitWaitingAtGate(DefaultDistributeLock lock, String key, int callers) {
		await().atMost(Duration.ofSeconds(10)).until(() -> lock.waitingAtGate(key) == callers);
	}

	/**
	 * {@link DefaultDistributeLock#tryAcquire(LockRequest)}; an interrupt is kept on the
	 * thread and thrown as an {@link IllegalStateException}.
	 */
	public static Optional<LockHandle> tryAcquire(DefaultDistributeLock lock, LockRequest request) {
		try {
			return lock.tryAcquire(request);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while acquiring '" + request.key() + "'", ex);
		}
	}

	/**
	 * {@link DefaultDistributeLock#tryAcquire(String, Duration, Duration)} with no fixed
	 * lease; an interrupt is kept on the thread and thrown as an
	 * {@link IllegalStateException}.
	 */
	public static Optional<LockHandle> tryAcquire(DefaultDistributeLock lock, String key, Duration wait) {
		try {
			return lock.tryAcquire(key, wait, null);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while acquiring '" + key + "'", ex);
		}
	}

}
