package io.github.distributelock.redis;

import io.github.distributelock.core.AbstractStoreAnswerThreadTests;
import io.github.distributelock.core.LockBackend;
import io.netty.util.concurrent.FastThreadLocalThread;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis client's event loops, whose thread delivers the answers of the lock's
 * connection: a blocking call there would wait until the command times out (a minute by
 * default).
 */
class RedisAnswerThreadTests extends AbstractStoreAnswerThreadTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Override
	protected LockBackend newBackend() {
		LettuceConnectionFactory connectionFactory = redis.newConnectionFactory();
		this.closeables.add(connectionFactory::destroy);
		return this.closeables.add(new RedisLockBackend(connectionFactory));
	}

	@Override
	protected boolean isStoreClientThread(Thread thread) {
		return thread instanceof FastThreadLocalThread && thread.getName().startsWith("lettuce-");
	}

}
