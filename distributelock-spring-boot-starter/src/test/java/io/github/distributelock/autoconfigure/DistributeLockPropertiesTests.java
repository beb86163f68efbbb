package io.github.distributelock.autoconfigure;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The defaults of {@link DistributeLockProperties} are the constants of the lock service
 * and the backends, read in a way that needs none of the stores' libraries.
 */
class DistributeLockPropertiesTests {

	@Test
	void defaultsAreTheConstantsOfTheLockServiceAndTheBackends() {
		DistributeLockProperties properties = new DistributeLockProperties();
		assertThat(properties.getWatchdogLease()).isEqualTo(DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE);
		assertThat(properties.getRedis().getKeyPrefix()).isEqualTo(RedisLockBackend.DEFAULT_KEY_PREFIX);
		assertThat(properties.getRedis().getFenceIdleTimeout()).isEqualTo(RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT);
		assertThat(properties.getRedis().getReplicaAckTimeout())
			.isEqualTo(RedisLockBackend.DEFAULT_REPLICA_ACK_TIMEOUT);
		assertThat(properties.getZookeeper().getRoot()).isEqualTo(ZooKeeperLockBackend.DEFAULT_ROOT);
		assertThat(properties.getJdbc().getTableName()).isEqualTo(JdbcLockBackend.DEFAULT_TABLE_NAME);
		assertThat(properties.getJdbc().getReleasedRowRetention())
			.isEqualTo(JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION);
	}

	@Test
	void defaultsAreReadWithoutAnyStoreLibrary() throws Exception {
		// Only the starter's classes and what every application has.
		URL[] classPath = { location(DistributeLockProperties.class), location(LogFactory.class) };
		try (URLClassLoader loader = new URLClassLoader(classPath, ClassLoader.getPlatformClassLoader())) {
			assertThat(List.of(RedisConnectionFactory.class, io.lettuce.core.RedisClient.class, CuratorFramework.class,
					JdbcTemplate.class, DataAccessException.class))
				.allSatisfy((storeClass) -> assertThatExceptionOfType(ClassNotFoundException.class)
					.isThrownBy(() -> loader.loadClass(storeClass.getName())));
			Object properties = loader.loadClass(DistributeLockProperties.class.getName())
				.getConstructor()
				.newInstance();
			BeanWrapper defaults = new BeanWrapperImpl(properties);
			assertThat(defaults.getPropertyValue("watchdogLease"))
				.isEqualTo(DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE);
			assertThat(defaults.getPropertyValue("redis.fenceIdleTimeout"))
				.isEqualTo(RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT);
			assertThat(defaults.getPropertyValue("jdbc.releasedRowRetention"))
				.isEqualTo(JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION);
		}
	}

	private static URL location(Class<?> type) {
		return type.getProtectionDomain().getCodeSource().getLocation();
	}

}
