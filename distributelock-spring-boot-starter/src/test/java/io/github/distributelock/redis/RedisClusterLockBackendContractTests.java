package io.github.distributelock.redis;

import java.time.Duration;
import java.util.List;

import io.github.distributelock.LockHandle;
import io.github.distributelock.core.AbstractLockBackendContractTests;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract on a real Redis Cluster of three masters with a replica each, without and
 * with replica acknowledgements: the lock key, its fencing counter and the scripts must
 * stay within one hash slot (no CROSSSLOT), release notifications must reach waiters
 * connected to another node, and with {@code min-replicas-to-ack} the script and its
 * {@code WAIT} must reach the master of each key's slot.
 */
class RedisClusterLockBackendContractTests {

	/** Ample for a replica in sync on a loaded machine, below the 2 s command timeout. */
	private static final Duration REPLICA_ACK_TIMEOUT = Duration.ofMillis(1500);

	@RegisterExtension
	static final EmbeddedRedisClusterExtension redis = new EmbeddedRedisClusterExtension();

	@Nested
	class WithoutReplicaAcks extends ClusterContract {

		@Override
		protected LockBackend newBackend() {
			return new RedisLockBackend(newConnectionFactory());
		}

		/**
		 * A factory that validates its shared connection replaces it when a PING fails:
		 * the lock opens a cluster connection of its own from the factory's client.
		 */
		@Test
		void aFactoryThatValidatesItsConnectionLocksOnEveryShard() throws Exception {
			LettuceConnectionFactory factory = newConnectionFactory();
			factory.setValidateConnection(true);
			DefaultDistributeLock lock = newLock(trackBackend(new RedisLockBackend(factory)),
					DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
			for (int i = 0; i < 12; i++) {
				String key = key() + ".validated." + i;
				try (LockHandle handle = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
					assertThat(isLockedInStore(key)).isTrue();
				}
				assertThat(isLockedInStore(key)).isFalse();
			}
		}

	}

	@Nested
	class WithOneReplicaToAck extends ClusterContract {

		@Override
		protected LockBackend newBackend() {
			return new RedisLockBackend(newConnectionFactory(), RedisLockBackend.DEFAULT_KEY_PREFIX,
					RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT, 1, REPLICA_ACK_TIMEOUT);
		}

		@Test
		void everyLockIsOnTheReplicaOfItsSlotsMasterOnceAcquired() throws Exception {
			DefaultDistributeLock lock = newLock();
			EmbeddedRedisCluster cluster = redis.cluster();
			for (int i = 0; i < 12; i++) {
				String key = key() + "." + i;
				String lockKey = RedisLockBackend.DEFAULT_KEY_PREFIX + key;
				try (LockHandle handle = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
					assertThat(cluster.replicaOf(cluster.masterOf(lockKey)).hasKey(lockKey)).isTrue();
				}
			}
		}

	}

	abstract class ClusterContract extends AbstractLockBackendContractTests {

		LettuceConnectionFactory newConnectionFactory() {
			LettuceConnectionFactory factory = redis.cluster().newConnectionFactory();
			closeAfterTest(factory::destroy);
			return factory;
		}

		@Override
		protected boolean isLockedInStore(String key) {
			return Boolean.TRUE.equals(redis.cluster().store().hasKey(RedisLockBackend.DEFAULT_KEY_PREFIX + key));
		}

		@Test
		void keysOnEveryShardAndKeysWithTheirOwnHashTagWork() throws Exception {
			DefaultDistributeLock lock = newLock();
			for (int i = 0; i < 30; i++) {
				String key = key() + "." + i;
				try (LockHandle handle = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
					assertThat(isLockedInStore(key)).isTrue();
				}
			}
			for (String odd : List.of("{user-7}.order", "a}b", "{}x")) {
				try (LockHandle handle = lock.tryAcquire(key() + odd, Duration.ZERO, null).orElseThrow()) {
					assertThat(isLockedInStore(key() + odd)).isTrue();
				}
			}
		}

	}

}
