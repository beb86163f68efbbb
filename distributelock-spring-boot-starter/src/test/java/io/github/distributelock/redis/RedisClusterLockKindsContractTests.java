package io.github.distributelock.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AbstractLockKindsContractTests;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;
import io.lettuce.core.cluster.SlotHash;
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

	/**
	 * The keys of one request with one hash tag, so that they share a slot and the
	 * contract's multi-key tests take them in one script; keys of several slots are
	 * tested below.
	 */
	@Override
	protected String multiKey(int i) {
		return "{" + key() + "}." + i;
	}

	@Test
	void keysOfSeveralSlotsAreTakenOneAfterTheOtherAndKeysOfOneSlotInOneScript() throws Exception {
		LockBackend store = newBackend();
		CountingLockBackend backend = CountingLockBackend.of(store);
		DefaultDistributeLock lock = new DefaultDistributeLock(backend);
		try {
			String a = key() + ".a";
			String b = keyInAnotherSlotThan(a);
			assertThat(backend.batches(claims(a, b))).isFalse();
			// All or nothing across slots too.
			try (LockHandle heldB = newLock().tryAcquire(b, Duration.ZERO, null).orElseThrow()) {
				assertThat(lock.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b)))).isEmpty();
				assertThat(isLockedInStore(a)).isFalse();
			}
			backend.acquireAttempts.set(0);
			backend.releases.set(0);
			try (LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b)))
				.orElseThrow()) {
				assertThat(isLockedInStore(a) && isLockedInStore(b)).isTrue();
				assertThat(backend.acquireAttempts).hasValue(2);
			}
			assertThat(backend.releases).hasValue(2);
			assertThat(isLockedInStore(a) || isLockedInStore(b)).isFalse();
			String c = "{" + key() + "}.c";
			String d = "{" + key() + "}.d";
			assertThat(backend.batches(claims(c, d))).isTrue();
			try (LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of(c), LockRequest.of(d)))
				.orElseThrow()) {
				EmbeddedRedisClusterNode master = redis.cluster().masterOf("lock:" + c);
				assertThat(master.hasKey("lock:" + c) && master.hasKey("lock:" + d)).isTrue();
			}
			assertThat(backend.acquireAllAttempts).hasValue(1);
			assertThat(backend.releaseAllCalls).hasValue(1);
			assertThat(backend.acquireAttempts).hasValue(2);
			assertThat(isLockedInStore(c) || isLockedInStore(d)).isFalse();
		}
		finally {
			lock.close();
			((AutoCloseable) store).close();
		}
	}

	@Test
	void withReplicaAcksTheKeysOfOneSlotAreOnTheReplicaOfItsMasterOnceAcquired() throws Exception {
		LettuceConnectionFactory factory = redis.cluster().newConnectionFactory();
		RedisLockBackend backend = new RedisLockBackend(factory, RedisLockBackend.DEFAULT_KEY_PREFIX,
				RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT, 1, Duration.ofMillis(1500));
		EmbeddedRedisCluster cluster = redis.cluster();
		String a = "{" + key() + "}.a";
		String b = "{" + key() + "}.b";
		try (DefaultDistributeLock lock = new DefaultDistributeLock(backend);
				LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b)))
					.orElseThrow()) {
			EmbeddedRedisClusterNode replica = cluster.replicaOf(cluster.masterOf("lock:" + a));
			assertThat(replica.hasKey("lock:" + a) && replica.hasKey("lock:" + b)).isTrue();
		}
		finally {
			backend.close();
			factory.destroy();
		}
		assertThat(isLockedInStore(a) || isLockedInStore(b)).isFalse();
	}

	private static List<LockBackend.Claim> claims(String... keys) {
		return Arrays.stream(keys).map((key) -> new LockBackend.Claim(key, "owner")).toList();
	}

	/** {@code key} with a suffix that puts its lock key in another hash slot. */
	private static String keyInAnotherSlotThan(String key) {
		int slot = SlotHash.getSlot("lock:" + key);
		for (int i = 0;; i++) {
			String other = key + ".b" + i;
			if (SlotHash.getSlot("lock:" + other) != slot) {
				return other;
			}
		}
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
