package io.github.distributelock.fault;

import java.util.List;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The multi-process faults on a real redis-server: the lease is the watchdog lease.
 */
class RedisMultiProcessFaultTests extends AbstractMultiProcessFaultTests {

	private static final long LEASE_MILLIS = 3000;

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Override
	protected List<String> backendArguments() {
		return List.of("backend=redis", "redisPort=" + redis.port(), "watchdogLeaseMs=" + LEASE_MILLIS);
	}

	@Override
	protected LockBackend newBackend() {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		closeAfter(factory::destroy);
		return new RedisLockBackend(factory);
	}

	@Override
	protected boolean isLocked(String key) {
		return redis.store().hasKey("lock:" + key);
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
