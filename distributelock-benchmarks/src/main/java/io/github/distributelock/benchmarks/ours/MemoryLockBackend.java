package io.github.distributelock.benchmarks.ours;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend;

/**
 * A {@link LockBackend} in this JVM's memory, so that a benchmark on it measures only our
 * engine and the {@code @Lockable} interceptor, with no store round trip to hide their
 * cost. Its leases expire, so the engine schedules its watchdog as it does for Redis.
 */
public final class MemoryLockBackend implements LockBackend {

	private final ConcurrentHashMap<String, String> owners = new ConcurrentHashMap<>();

	private final AtomicLong tokens = new AtomicLong();

	@Override
	public String name() {
		return "memory";
	}

	@Override
	public AcquireResult tryAcquire(String key, String owner, Duration lease) {
		if (this.owners.putIfAbsent(key, owner) == null) {
			return AcquireResult.acquired(this.tokens.incrementAndGet());
		}
		return AcquireResult.heldByAnother(null);
	}

	@Override
	public boolean renew(String key, String owner, Duration lease) {
		return owner.equals(this.owners.get(key));
	}

	@Override
	public boolean release(String key, String owner) {
		return this.owners.remove(key, owner);
	}

	@Override
	public void awaitRelease(String key, Duration maxWait) throws InterruptedException {
		TimeUnit.MILLISECONDS.sleep(Math.min(1, maxWait.toMillis()));
	}

}
