package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.ours.OursKindLibrary;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's equivalent of one of our lock kinds, on a client built like
 * {@link RedissonLibrary}'s: {@code RFairLock}, the write or read lock of an
 * {@code RReadWriteLock}, an {@code RPermitExpirableSemaphore}, or a
 * {@code RedissonMultiLock} of two locks.
 */
public final class RedissonKindLibrary implements LockLibrary {

	/**
	 * The lease of a semaphore permit: it has no watchdog, so it is given the watchdog's
	 * 30 s.
	 */
	private static final long PERMIT_LEASE_MILLIS = 30_000;

	private final RedissonClient redisson;

	private final OursKindLibrary.Kind kind;

	private final Set<String> permitsSet = ConcurrentHashMap.newKeySet();

	public RedissonKindLibrary(Endpoints endpoints, OursKindLibrary.Kind kind) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + endpoints.redisPort());
		this.redisson = Redisson.create(config);
		this.kind = kind;
	}

	/**
	 * What Redisson runs with for a kind, for the page.
	 * @param kind the kind
	 * @return the configuration
	 */
	public static LibraryConfiguration configuration(OursKindLibrary.Kind kind) {
		String calls = switch (kind) {
			case FAIR -> "`getFairLock(key).tryLock(wait, MILLISECONDS)` (no lease: the watchdog renews it); "
					+ "unlock `unlock()`";
			case WRITE -> "`getReadWriteLock(key).writeLock().tryLock(wait, MILLISECONDS)`; unlock `unlock()`";
			case READ -> "`getReadWriteLock(key).readLock().tryLock(wait, MILLISECONDS)`; unlock `unlock()`";
			case PERMITS -> "`getPermitExpirableSemaphore(key)`, `trySetPermits(" + OursKindLibrary.PERMITS
					+ ")` once per key, then `tryAcquire(wait, 30000, MILLISECONDS)` (a permit has no watchdog: "
					+ "a 30 s lease, the watchdog's timeout); unlock `release(permitId)`";
			case MULTI -> "`getMultiLock(getLock(key + \".a\"), getLock(key + \".b\")).tryLock(wait, MILLISECONDS)`; "
					+ "unlock `unlock()`";
		};
		return new LibraryConfiguration("Redisson", RedissonLibrary.CONFIGURATION.client(),
				RedissonLibrary.CONFIGURATION.settings(), calls);
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		if (this.kind == OursKindLibrary.Kind.PERMITS) {
			RPermitExpirableSemaphore semaphore = this.redisson.getPermitExpirableSemaphore(key);
			if (this.permitsSet.add(key)) {
				// Redisson's semaphore has no permits until they are set: once per key,
				// in the warm-up.
				semaphore.trySetPermits(OursKindLibrary.PERMITS);
			}
			String permit = semaphore.tryAcquire(wait.toMillis(), PERMIT_LEASE_MILLIS, TimeUnit.MILLISECONDS);
			if (permit == null) {
				return null;
			}
			return () -> semaphore.release(permit);
		}
		RLock lock = switch (this.kind) {
			case FAIR -> this.redisson.getFairLock(key);
			case WRITE -> this.redisson.getReadWriteLock(key).writeLock();
			case READ -> this.redisson.getReadWriteLock(key).readLock();
			default -> this.redisson.getMultiLock(this.redisson.getLock(key + ".a"), this.redisson.getLock(key + ".b"));
		};
		if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return lock::unlock;
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
