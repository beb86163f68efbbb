package io.github.distributelock.fault;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.types.RedisClientInfo;

import static org.assertj.core.api.Assertions.assertThat;
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

	/**
	 * A release published while a waiter's subscriber connection was down reaches no one:
	 * once its client has reconnected (and subscribed again), the waiter must learn that
	 * it may have missed one, not wait for the holder's whole lease.
	 */
	@Test
	void aWaiterWhoseSubscriptionWasCutGetsALockReleasedDuringTheCutOnceReconnected() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(redis.port()));
		DefaultDistributeLock waiterLock = closeAfter(new DefaultDistributeLock(newBackend(proxy.port())));
		DefaultDistributeLock holderLock = closeAfter(new DefaultDistributeLock(newBackend(redis.port())));
		String key = "subscription-cut." + System.nanoTime();
		// The watchdog's lease of 30 s, longer than the waiter waits.
		LockHandle held = holderLock.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = waiterLock
			.tryAcquireAsync(LockRequest.of(key).withWaitTime(Duration.ofSeconds(20)));
		await().atMost(Duration.ofSeconds(10)).until(() -> waitingSubscribers() == 1);
		proxy.cut();
		held.close();
		long released = System.nanoTime();
		proxy.restore();
		// Not at the end of its wait, when it would try once more anyway.
		try (LockHandle taken = waiting.get(30, TimeUnit.SECONDS).orElseThrow()) {
			assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(5));
		}
	}

	/** How many clients subscribe to a lock's release channel and the listener's own. */
	private static long waitingSubscribers() {
		return redis.store()
			.execute((RedisCallback<List<RedisClientInfo>>) (connection) -> connection.serverCommands().getClientList())
			.stream()
			.filter((client) -> "2".equals(client.get("sub")))
			.count();
	}

}
