package io.github.distributelock.fault;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A lock created against a store that nothing listens for: its first call fails with a
 * {@link DistributeLockException} naming the key and the backend, within the client's
 * timeouts.
 */
class UnreachableStoreAtFirstUseTests {

	private static final Log logger = LogFactory.getLog(UnreachableStoreAtFirstUseTests.class);

	/** Room for a loaded machine's scheduling on top of the bounds the timeouts give. */
	private static final Duration SLACK = Duration.ofSeconds(2);

	@Test
	void unreachableRedisAtFirstUseFailsWithinTheClientTimeoutNamingKeyAndBackend() throws Exception {
		Duration commandTimeout = Duration.ofSeconds(2);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", EmbeddedRedis.freePort()),
				LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
		factory.afterPropertiesSet();
		factory.start();
		try (RedisLockBackend backend = new RedisLockBackend(factory);
				DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
			assertFailsAtFirstUseNamingKeyAndBackend(lock, commandTimeout);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void unreachableZooKeeperAtFirstUseFailsWithinTheClientTimeoutNamingKeyAndBackend() throws Exception {
		int connectionTimeoutMillis = 2_000;
		int retries = 1;
		int baseSleepMillis = 100;
		try (CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString("127.0.0.1:" + EmbeddedRedis.freePort())
			.sessionTimeoutMs(10_000)
			.connectionTimeoutMs(connectionTimeoutMillis)
			.retryPolicy(new ExponentialBackoffRetry(baseSleepMillis, retries))
			.build()) {
			client.start();
			try (ZooKeeperLockBackend backend = new ZooKeeperLockBackend(client);
					DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
				// Curator waits for a connection on each try, and sleeps before a retry.
				assertFailsAtFirstUseNamingKeyAndBackend(lock,
						Duration.ofMillis((retries + 1) * connectionTimeoutMillis + 2 * baseSleepMillis));
			}
		}
	}

	@Test
	void unreachablePostgresAtFirstUseFailsWithinTheClientTimeoutNamingKeyAndBackend() throws Exception {
		Duration connectionTimeout = Duration.ofSeconds(2);
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + EmbeddedRedis.freePort() + "/postgres?connectTimeout="
				+ connectionTimeout.toSeconds());
		config.setUsername("postgres");
		config.setConnectionTimeout(connectionTimeout.toMillis());
		// The pool starts without the database, as an application can.
		config.setInitializationFailTimeout(-1);
		try (HikariDataSource dataSource = new HikariDataSource(config);
				DefaultDistributeLock lock = new DefaultDistributeLock(new JdbcLockBackend(dataSource,
						JdbcLockBackend.DEFAULT_TABLE_NAME, "postgresql", Clock.systemUTC()))) {
			// No connection can be made, so no statement waits for an answer: the pool's
			// connection timeout bounds each call.
			assertFailsAtFirstUseNamingKeyAndBackend(lock, connectionTimeout);
		}
	}

	/**
	 * The first acquisition fails with the key and the backend named, within two store
	 * calls: the attempt, and the release that gives back an attempt the store may have
	 * applied before failing to answer.
	 */
	private static void assertFailsAtFirstUseNamingKeyAndBackend(DefaultDistributeLock lock, Duration storeCall) {
		String backend = lock.backend().name();
		long start = System.nanoTime();
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(() -> lock.tryAcquire("unreachable", Duration.ofSeconds(1), null))
			.withMessageContaining("'unreachable'")
			.withMessageContaining(" in " + backend)
			.satisfies((ex) -> {
				assertThat(ex.getLockKey()).isEqualTo("unreachable");
				assertThat(ex.getBackend()).isEqualTo(backend);
			});
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		logger.info(backend + ": the first lock call to an unreachable server failed after " + millis
				+ " ms (one store call may take " + storeCall.toMillis() + " ms)");
		assertThat(millis).isLessThan(storeCall.multipliedBy(2).plus(SLACK).toMillis());
		assertThat(lock.heldLocks()).isEmpty();
	}

}
