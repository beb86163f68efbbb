package io.github.distributelock.benchmarks.peer;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LockLibrary;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * Spring Integration's {@link RedisLockRegistry} with its defaults (60 s expiry, a lock
 * cache of 100,000 keys), in one of its two lock types.
 */
public final class SpringIntegrationRedisLibrary implements LockLibrary {

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
