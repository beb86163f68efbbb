package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@link RLock} with its defaults: a 30 s lease renewed by its watchdog,
 * waiting woken by pub/sub.
 */
public final class RedissonLibrary implements LockLibrary {

	/** What this adapter runs with, for the page. */
	public static final LibraryConfiguration CONFIGURATION = new LibraryConfiguration("Redisson",
			"`Redisson.create(config)`, `config.useSingleServer().setAddress(\"redis://127.0.0.1:port\")` and "
					+ "nothing else; one client shared by the JVM's threads",
			"Redisson's defaults: `nettyThreads` 32, `threads` 16, NIO transport, 24 to 64 connections, "
					+ "subscription pool 1 to 50 connections of 5 subscriptions each, `lockWatchdogTimeout` 30 s "
					+ "(the lease renewed every 10 s while held)",
			"`getLock(key).tryLock(wait, MILLISECONDS)` (no lease: the watchdog renews it); unlock `unlock()`; "
					+ "uncontended `lock()`");

	private final RedissonClient redisson;

	public RedissonLibrary(Endpoints endpoints) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + endpoints.redisPort());
		this.redisson = Redisson.create(config);
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		RLock lock = this.redisson.getLock(key);
		if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return lock::unlock;
	}

	@Override
	public void lockAndUnlock(String key) {
		RLock lock = this.redisson.getLock(key);
		lock.lock();
		lock.unlock();
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
