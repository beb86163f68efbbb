package io.github.distributelock.fault;

import java.time.Duration;

import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.awaitility.Awaitility.await;

/**
 * Connection cuts between a Redis client and a real redis-server.
 */
class RedisConnectionCutTests extends AbstractConnectionCutTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Override
	protected LockBackend newBackend(int port) {
		// A command timeout below the lease, and above the short blackhole: a renewal
		// held back by it is answered late rather than failed.
		LettuceConnectionFactory factory = EmbeddedRedis.connectionFactory(port, Duration.ofSeconds(2));
		closeAfter(factory::destroy);
		return new RedisLockBackend(factory);
	}

	/**
	 * Longer than half the command timeout each way: the script runs, and its answer
	 * comes after the command timed out.
	 */
	@Override
	protected Duration answerLatency() {
		return Duration.ofMillis(1500);
	}

	/**
	 * Waits for the command to time out; a cut would not do, as Lettuce sends the
	 * commands of a dropped connection again once it is back.
	 */
	@Override
	protected void loseTheAnswer(TcpProxy proxy, CountingLockBackend backend) {
		await().atMost(Duration.ofSeconds(10)).until(() -> backend.acquireAllFailures.get() > 0);
		proxy.latency(Duration.ZERO);
	}

	@Override
	protected int storePort() {
		return redis.port();
	}

	@Override
	protected boolean isLocked(String key) {
		return redis.store().hasKey("lock:" + key);
	}

	@Override
	protected String backendName() {
		return "Redis";
	}

}
