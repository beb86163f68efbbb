package io.github.distributelock.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A lock this instance holds, as shown by operations tooling.
 *
 * @param key the lock key
 * @param owner the owner token in the store
 * @param since when it was acquired
 * @param lease the fixed lease, or {@code null} when the watchdog renews it
 * @param fencingToken the fencing token of the acquisition
 * @param thread the name of the thread that took it, or {@code null} for a lock owned by
 * a caller's value
 * @author distributelock
 * @since 1.0.0
 */
public record HeldLockInfo(String key, String owner, Instant since, @Nullable Duration lease, long fencingToken,
		@Nullable String thread) {

	static HeldLockInfo of(HeldLock lock) {
		Thread thread = lock.reentrantThread;
		return new HeldLockInfo(lock.key, lock.owner, lock.acquiredAt, lock.fixedLease, lock.fencingToken,
				(thread != null) ? thread.getName() : null);
	}

}
