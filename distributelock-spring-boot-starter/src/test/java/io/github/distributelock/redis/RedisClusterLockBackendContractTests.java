package io.github.distributelock.redis;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import io.github.distributelock.LockHandle;
import io.github.distributelock.core.AbstractLockBackendContractTests;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import redis.embedded.RedisShardedCluster;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The contract on a real 3-shard Redis Cluster: the lock key, its fencing counter and the
 * scripts must stay within one hash slot (no CROSSSLOT), and release notifications must
 * reach waiters connected to another node.
 */
class RedisClusterLockBackendContractTests extends AbstractLockBackendContractTests {

	private static RedisShardedCluster cluster;

	private static LettuceConnectionFactory inspectionConnection;

	private static StringRedisTemplate store;

	@BeforeAll
	static void startCluster() throws IOException {
		cluster = RedisShardedCluster.newRedisCluster()
			.ephemeral()
			.shard("shard-1", 0)
			.shard("shard-2", 0)
			.shard("shard-3", 0)
			.initializationTimeout(Duration.ofSeconds(30))
			.build();
		cluster.start();
		awaitEveryNodeSeesAHealthyCluster();
		inspectionConnection = newConnectionFactory();
		store = new StringRedisTemplate(inspectionConnection);
	}

	@AfterAll
	static void stopCluster() throws IOException {
		try {
			if (inspectionConnection != null) {
				inspectionConnection.destroy();
			}
		}
		finally {
			cluster.stop();
		}
	}

	/**
	 * A client caches the slot map it reads when it connects, so connect only once every
	 * node has every slot assigned.
	 */
	private static void awaitEveryNodeSeesAHealthyCluster() {
		for (int port : cluster.serverPorts()) {
			RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				await().atMost(Duration.ofSeconds(60))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> connection.sync().clusterInfo(),
							(info) -> info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384"));
			}
			finally {
				client.shutdown();
			}
		}
	}

	private static LettuceConnectionFactory newConnectionFactory() {
		List<String> nodes = cluster.serverPorts().stream().map((port) -> "127.0.0.1:" + port).toList();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(nodes));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Override
	protected LockBackend newBackend() {
		LettuceConnectionFactory factory = newConnectionFactory();
		closeAfterTest(factory::destroy);
		return new RedisLockBackend(factory);
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return Boolean.TRUE.equals(store.hasKey("lock:" + key));
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
