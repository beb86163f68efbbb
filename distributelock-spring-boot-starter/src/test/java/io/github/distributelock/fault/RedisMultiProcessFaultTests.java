package io.github.distributelock.fault;

import java.util.List;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The multi-process faults on a real redis-server: the lease is the watchdog lease.
 */
class RedisMultiProcessFaultTests extends AbstractMultiProcessFaultTests {

	private static final long LEASE_MILLIS = 3000;

	private static EmbeddedRedis redis;

	private static LettuceConnectionFactory connectionFactory;

	private static StringRedisTemplate store;

	@BeforeAll
	static void startRedis() {
		redis = EmbeddedRedis.start();
		connectionFactory = redis.newConnectionFactory();
		store = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void stopRedis() throws Exception {
		try {
			if (connectionFactory != null) {
				connectionFactory.destroy();
			}
		}
		finally {
			if (redis != null) {
				redis.close();
			}
		}
	}

	@Override
	protected List<String> backendArguments() {
		return List.of("backend=redis", "redisPort=" + redis.port(), "watchdogLeaseMs=" + LEASE_MILLIS);
	}

	@Override
	protected LockBackend newBackend() {
		return new RedisLockBackend(connectionFactory);
	}

	@Override
	protected boolean isLocked(String key) {
		return store.hasKey("lock:" + key);
	}

	@Override
	protected long leaseMillis() {
		return LEASE_MILLIS;
	}

	@Override
	protected String backendName() {
		return "Redis";
	}

}
