package io.github.distributelock.fault;

import java.time.Duration;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A caller's deadline on a slow or vanishing redis-server.
 */
class RedisDeadlineFaultTests extends AbstractDeadlineFaultTests {

	/** Lettuce queues a command while it reconnects, until this timeout. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Override
	protected LockBackend newBackend(int port) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(COMMAND_TIMEOUT).build());
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
	protected String backendName() {
		return "Redis";
	}

	@Override
	protected Duration storeCallTimeout() {
		return COMMAND_TIMEOUT;
	}

}
