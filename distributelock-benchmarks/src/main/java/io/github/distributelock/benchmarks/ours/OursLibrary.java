package io.github.distributelock.benchmarks.ours;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.LockHandle;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.core.DefaultDistributeLock;
import org.jspecify.annotations.Nullable;

/**
 * Our {@link DefaultDistributeLock}, called in one of its two styles: the original
 * starter's {@code tryLock/releaseLock} with a caller's value, or a {@link LockHandle}
 * from {@code tryAcquire} closed after use. Both take a lease renewed by the watchdog,
 * the default.
 */
public final class OursLibrary implements LockLibrary {

	private final DefaultDistributeLock lock;

	private final boolean valueStyle;

	private final AutoCloseable resources;

	private final String valuePrefix = Long.toString(System.nanoTime(), 36) + ":";

	private final AtomicLong values = new AtomicLong();

	public OursLibrary(DefaultDistributeLock lock, boolean valueStyle, AutoCloseable resources) {
		this.lock = lock;
		this.valueStyle = valueStyle;
		this.resources = resources;
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		if (this.valueStyle) {
			String value = this.valuePrefix + this.values.incrementAndGet();
			if (!this.lock.tryLock(key, value, (int) wait.toMillis(), -1)) {
				return null;
			}
			return () -> this.lock.releaseLock(key, value);
		}
		Optional<LockHandle> handle = this.lock.tryAcquire(key, wait, null);
		return handle.<Release>map((held) -> held::close).orElse(null);
	}

	@Override
	public void close() throws Exception {
		this.lock.close();
		this.resources.close();
	}

}
