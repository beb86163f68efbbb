package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * Spring Integration's {@link RedisLockRegistry} with its defaults (60 s expiry, a cache
 * of 256 locks, 100 ms between tries of a spin lock), in one of its two lock types.
 */
public final class SpringIntegrationRedisLibrary implements LockLibrary {

	/**
	 * What this adapter runs with, for the page.
	 * @param type the lock type
	 * @return the configuration
	 */
	public static LibraryConfiguration configuration(RedisLockType type) {
		return new LibraryConfiguration("Spring Integration",
				"`new RedisLockRegistry(connectionFactory, \"si-lock\")` on a Spring Data Redis "
						+ "`LettuceConnectionFactory` with Spring Boot's defaults, one registry shared by the JVM's "
						+ "threads, `setRedisLockType(" + type + ")`",
				"its defaults: expiry 60 s, a cache of 256 locks; the JVM's threads queue on a local lock first; "
						+ ((type == RedisLockType.SPIN_LOCK)
								? "SPIN_LOCK, the default type, retries every 100 ms (`idleBetweenTries`)"
								: "PUB_SUB_LOCK, an option, waits for a release message"),
				"`registry.obtain(key).tryLock(wait, MILLISECONDS)`; unlock `unlock()`; uncontended `lock()`");
	}

	private final LettuceConnectionFactory connectionFactory;

	private final RedisLockRegistry registry;

	public SpringIntegrationRedisLibrary(Endpoints endpoints, RedisLockType type) {
		this.connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", endpoints.redisPort()));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.registry = new RedisLockRegistry(this.connectionFactory, "si-lock");
		this.registry.setRedisLockType(type);
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) throws InterruptedException {
		Lock lock = this.registry.obtain(key);
		if (!lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)) {
			return null;
		}
		return lock::unlock;
	}

	@Override
	public void lockAndUnlock(String key) {
		Lock lock = this.registry.obtain(key);
		lock.lock();
		lock.unlock();
	}

	@Override
	public void close() {
		this.registry.destroy();
		this.connectionFactory.destroy();
	}

}
