package io.github.distributelock.fault;

import java.time.Duration;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Connection cuts between a Redis client and a real redis-server.
 */
class RedisConnectionCutTests extends AbstractConnectionCutTests {

	private static EmbeddedRedis redis;

	private static LettuceConnectionFactory inspection;

	@BeforeAll
	static void startRedis() {
		redis = EmbeddedRedis.start();
		inspection = redis.newConnectionFactory();
	}

	@AfterAll
	static void stopRedis() throws Exception {
		try {
			if (inspection != null) {
				inspection.destroy();
			}
		}
		finally {
			if (redis != null) {
				redis.close();
			}
		}
	}

	@Override
	protected LockBackend newBackend(int port) {
		// A command timeout below the lease, and above the short blackhole: a renewal
		// held back by it is answered late rather than failed.
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		closeAfter(factory::destroy);
		return new RedisLockBackend(factory);
	}

	@Override
	protected int storePort() {
		return redis.port();
	}

	@Override
	protected boolean isLocked(String key) {
		return new StringRedisTemplate(inspection).hasKey("lock:" + key);
	}

	@Override
	protected String backendName() {
		return "Redis";
	}

}
