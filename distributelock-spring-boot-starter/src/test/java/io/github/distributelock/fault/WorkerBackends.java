package io.github.distributelock.fault;

import java.util.Map;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.RedisLockBackend;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Builds the backend a {@link LockWorker} locks with, from its arguments.
 */
final class WorkerBackends {

	private WorkerBackends() {
	}

	static LockBackend create(Map<String, String> options) {
		String backend = options.get("backend");
		if ("redis".equals(backend)) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(options.get("redisPort"))));
			factory.afterPropertiesSet();
			factory.start();
			return new RedisLockBackend(factory);
		}
		throw new IllegalArgumentException("Unknown backend '" + backend + "'");
	}

	static void close(LockBackend backend) throws Exception {
		if (backend instanceof AutoCloseable closeable) {
			closeable.close();
		}
	}

}
