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
 * @param lease the lease in the store, fixed or renewed by the watchdog, or {@code null}
 * when the store has no lease (the lock lives as long as the session)
 * @param renewed whether the watchdog renews the lease while the lock is held
 * @param leaseExpiresAt when the lease runs out unless renewed before, or {@code null}
 * when the store has no lease
 * @param fencingToken the fencing token of the acquisition
 * @param thread the name of the thread that took it, or {@code null} for a lock owned by
 * a caller's value
 * @param kind the kind of lock: {@code exclusive}, {@code fair}, {@code read},
 * {@code write} or {@code permits}
 * @param permits how many holders the key allows, for {@code permits}; else 1
 * @param holds how many reentrant entries of this instance hold it
 * @since 1.0.0
 */
public record HeldLockInfo(String key, String owner, Instant since, @Nullable Duration lease, boolean renewed,
		@Nullable Instant leaseExpiresAt, long fencingToken, @Nullable String thread, String kind, int permits,
		int holds) {

	static HeldLockInfo of(HeldLock lock) {
		Thread thread = (lock.reentrancyOwner instanceof Thread owner) ? owner : null;
		return new HeldLockInfo(lock.key, lock.owner(), lock.acquiredAt, lock.lease.duration, lock.lease.renewed,
				lock.lease.expiresAt(), lock.fencingToken, (thread != null) ? thread.getName() : null,
				lock.kind().tag(), lock.kind().permits(), lock.holds());
	}

}
