package io.github.distributelock.fault;

import java.time.Duration;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A redis-server stopped and started again on the same port (empty, as it runs without
 * persistence) under held and awaited locks.
 */
class RedisStoreOutageTests extends AbstractStoreOutageTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	/** Its own server, as the test stops it. */
	@RegisterExtension
	static final EmbeddedRedisExtension redis = EmbeddedRedisExtension.ofItsOwn();

	@Override
	protected LockBackend newBackend() {
		LettuceConnectionFactory factory = EmbeddedRedis.connectionFactory(redis.port(), COMMAND_TIMEOUT);
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
