package io.github.distributelock.redis;

import java.time.Duration;
import java.util.List;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AbstractLockKindsContractTests;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.distributelock.core.Backends.join;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The kinds of lock on a real Redis Cluster of three masters with a replica each: every
 * script touches only keys of the lock key's hash slot (no {@code CROSSSLOT}), and
 * release messages reach waiters connected to other nodes.
 */
class RedisClusterLockKindsContractTests extends AbstractLockKindsContractTests {

	@RegisterExtension
	static final EmbeddedRedisClusterExtension redis = new EmbeddedRedisClusterExtension();

	@Override
	protected LockBackend newBackend() {
		return RedisLockKindsContractTests.backend(redis.cluster().newConnectionFactory(),
				RedisKindScripts.WAITER_LEASE);
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return RedisLockKindsContractTests.isLocked(redis.cluster().store(), key);
	}

	@Test
	void everyKindWorksOnKeysOfEveryShapeAndShard() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockBackend waiter = newBackend();
		try {
			for (String suffix : List.of(".1", ".2", ".3", ".4", "{user-7}.order", "a}b", "{}x", "x{y")) {
				String key = key() + suffix;
				for (LockRequest request : List.of(LockRequest.of(key).withFair(true),
						LockRequest.of(key).withMode(LockMode.WRITE), LockRequest.of(key).withMode(LockMode.READ),
						LockRequest.of(key).withPermits(2))) {
					try (LockHandle handle = lock.tryAcquire(request).orElseThrow()) {
						assertThat(isLockedInStore(key)).as(request.toString()).isTrue();
						// A queued waiter writes the queue beside the lock word.
						LockKind queuedKind = request.fair() ? LockKind.FAIR
								: (request.mode() != LockMode.EXCLUSIVE) ? LockKind.WRITE : null;
						if (queuedKind != null) {
							LockBackend.Claim queued = new LockBackend.Claim(key, "waiter", null, queuedKind);
							assertThat(join(waiter.tryAcquire(queued, Duration.ofSeconds(30))).acquired()).isFalse();
							join(waiter.release(queued));
						}
					}
					assertThat(isLockedInStore(key)).as(request.toString()).isFalse();
				}
			}
		}
		finally {
			((AutoCloseable) waiter).close();
		}
	}

	@Test
	void withReplicaAcksEveryKindIsOnTheReplicaOfItsSlotsMasterOnceAcquired() throws Exception {
		LettuceConnectionFactory factory = redis.cluster().newConnectionFactory();
		RedisLockBackend backend = new RedisLockBackend(factory, RedisLockBackend.DEFAULT_KEY_PREFIX,
				RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT, 1, Duration.ofMillis(1500));
		EmbeddedRedisCluster cluster = redis.cluster();
		try (DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
			for (LockRequest request : List.of(LockRequest.of(key()).withFair(true),
					LockRequest.of(key()).withMode(LockMode.WRITE), LockRequest.of(key()).withMode(LockMode.READ),
					LockRequest.of(key()).withPermits(2))) {
				try (LockHandle handle = lock.tryAcquire(request.withOwner("owner")).orElseThrow()) {
					LockBackend.Claim claim = new LockBackend.Claim(key(), "owner", null, LockKind.of(request));
					assertThat(join(backend.renew(claim, Duration.ofSeconds(30)))).as(request.toString()).isTrue();
					String lockKey = RedisLockBackend.DEFAULT_KEY_PREFIX + key();
					assertThat(cluster.replicaOf(cluster.masterOf(lockKey)).hasKey(lockKey)).as(request.toString())
						.isTrue();
				}
			}
		}
		finally {
			backend.close();
			factory.destroy();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

}
