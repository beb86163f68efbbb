package io.github.distributelock.redis;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fixed lease of centuries, or of "for ever", holds the lock: Redis refuses a far
 * expiry, and leases of a thousand years or of {@code Long.MAX_VALUE} ms failed every
 * attempt with {@code ERR invalid expire time}.
 */
class RedisLongLeaseTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private static final List<Function<String, LockRequest>> KINDS = List.of(LockRequest::of,
			(key) -> LockRequest.of(key).withFair(true), (key) -> LockRequest.of(key).withMode(LockMode.READ),
			(key) -> LockRequest.of(key).withMode(LockMode.WRITE), (key) -> LockRequest.of(key).withPermits(2),
			(key) -> LockRequest.all(LockRequest.of(key + ".a"), LockRequest.of(key + ".b")));

	@Test
	void lockWithALeaseOfCenturiesOrForEverIsHeldUntilItIsReleased() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		try (RedisLockBackend backend = new RedisLockBackend(factory);
				DefaultDistributeLock holder = new DefaultDistributeLock(backend)) {
			for (Duration lease : List.of(Duration.ofDays(365L * 1_000), Duration.ofMillis(Long.MAX_VALUE))) {
				for (int kind = 0; kind < KINDS.size(); kind++) {
					String key = "long-lease." + kind + "." + System.nanoTime();
					LockRequest request = KINDS.get(kind).apply(key).withLeaseTime(lease);
					String stored = "lock:" + (request.isMultiKey() ? key + ".a" : key);
					try (LockHandle held = holder.tryAcquire(request).orElseThrow()) {
						assertThat(redis.store().getExpire(stored)).as("kind %d, lease %s", kind, lease)
							.isGreaterThan(Duration.ofDays(365L * 99).toSeconds());
						assertThat(held.isHeld()).isTrue();
					}
					assertThat(redis.store().hasKey(stored)).isFalse();
				}
			}
		}
		finally {
			factory.destroy();
		}
	}

}
