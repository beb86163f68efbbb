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

/**
 * A redis-server stopped and started again on the same port (empty, as it runs without
 * persistence) under held and awaited locks.
 */
class RedisStoreOutageTests extends AbstractStoreOutageTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	private static EmbeddedRedis redis;

	@BeforeAll
	static void startRedis() {
		redis = EmbeddedRedis.start();
	}

	@AfterAll
	static void stopRedis() throws Exception {
		if (redis != null) {
			redis.close();
		}
	}

	@Override
	protected LockBackend newBackend() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", redis.port()),
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
		factory.afterPropertiesSet();
		factory.start();
		closeAfter(factory::destroy);
		return new RedisLockBackend(factory);
	}

	/** Lettuce queues a command while it reconnects, until its command timeout. */
	@Override
	protected Duration storeCallTimeout() {
		return COMMAND_TIMEOUT;
	}

	@Override
	protected void stopStore() throws Exception {
		redis.stop();
	}

	@Override
	protected void startStore() throws Exception {
		redis.restart();
	}

	@Override
	protected String backendName() {
		return "Redis";
	}

}
