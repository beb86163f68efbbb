package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The SPI's calls, waited for, for tests that drive a backend directly.
 */
public final class Backends {

	private Backends() {
	}

	public static AcquireResult tryAcquire(LockBackend backend, String key, String owner, Duration lease) {
		return join(backend.tryAcquire(new LockBackend.Claim(key, owner), lease));
	}

	public static boolean release(LockBackend backend, String key, String owner) {
		return join(backend.release(new LockBackend.Claim(key, owner)));
	}

	public static HandOverLockBackend.HandOver handOver(HandOverLockBackend backend, String key, String holder,
			String next, Duration lease) {
		return join(backend.handOver(new LockBackend.Claim(key, holder), new LockBackend.Claim(key, next), lease));
	}

	public static boolean renew(LockBackend backend, String key, String owner, Duration lease) {
		return join(backend.renew(new LockBackend.Claim(key, owner), lease));
	}

	/** Waits for a stage, at most 30 s, and throws what it failed with. */
	public static <T> T join(CompletionStage<T> stage) {
		try {
			return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
		}
		catch (java.util.concurrent.ExecutionException ex) {
			throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
					: new IllegalStateException(ex.getCause());
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
