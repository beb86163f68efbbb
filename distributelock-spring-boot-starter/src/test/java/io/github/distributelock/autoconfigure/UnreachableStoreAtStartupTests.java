package io.github.distributelock.autoconfigure;

import java.time.Duration;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A store that is down when the application starts: the application starts (as Spring
 * Boot's own clients do, which connect lazily) unless the starter must read the store to
 * configure itself, in which case startup fails saying what to do; lock calls fail with a
 * {@link DistributeLockException} naming key and backend, and work once the store is up,
 * without a restart.
 */
class UnreachableStoreAtStartupTests {

	@Test
	void redisDownAtStartupFailsLockCallsClearlyUntilItIsUp() throws Exception {
		try (EmbeddedRedis redis = EmbeddedRedis.start()) {
			redis.stop();
			new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
				.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
						"spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=1s",
						"spring.data.redis.connect-timeout=1s")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					DistributeLock lock = context.getBean(DistributeLock.class);
					assertThatExceptionOfType(DistributeLockException.class)
						.isThrownBy(() -> lock.tryAcquire("order.1", Duration.ofMillis(500), null))
						.satisfies((ex) -> assertThat(ex.getLockKey()).isEqualTo("order.1"))
						.satisfies((ex) -> assertThat(ex.getBackend()).isEqualTo("redis"));
					redis.restart();
					assertWorksOnceTheStoreIsUp(lock);
				});
		}
	}

	@Test
	void zookeeperDownAtStartupFailsLockCallsClearlyUntilItIsUp() throws Exception {
		try (TestingServer server = EmbeddedZooKeeper.startServer()) {
			server.stop();
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
				.withPropertyValues("distributelock.type=zookeeper",
						"distributelock.zookeeper.connect-string=" + server.getConnectString(),
						"distributelock.zookeeper.connection-timeout=1s", "distributelock.zookeeper.base-sleep=100ms",
						"distributelock.zookeeper.max-retries=1")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					DistributeLock lock = context.getBean(DistributeLock.class);
					assertThatExceptionOfType(DistributeLockException.class)
						.isThrownBy(() -> lock.tryAcquire("order.1", Duration.ofMillis(500), null))
						.satisfies((ex) -> assertThat(ex.getLockKey()).isEqualTo("order.1"))
						.satisfies((ex) -> assertThat(ex.getBackend()).isEqualTo("zookeeper"));
					server.restart();
					assertWorksOnceTheStoreIsUp(lock);
				});
		}
	}

	@Test
	void databaseDownAtStartupFailsStartupWhenTheDialectMustBeDetected() {
		jdbcContextRunner().run((context) -> {
			FailureAnalysis analysis = DistributeLockAutoConfigurationTests.failureAnalysis(context);
			assertThat(analysis.getDescription()).contains("Could not read the database's metadata");
			assertThat(analysis.getAction()).contains("spring.datasource.url", "distributelock.jdbc.dialect");
		});
	}

	@Test
	void databaseDownAtStartupWithTheDialectSetStartsAndFailsLockCallsClearly() {
		jdbcContextRunner().withPropertyValues("distributelock.jdbc.dialect=postgresql").run((context) -> {
			assertThat(context).hasNotFailed();
			DistributeLock lock = context.getBean(DistributeLock.class);
			assertThatExceptionOfType(DistributeLockException.class)
				.isThrownBy(() -> lock.tryAcquire("order.1", Duration.ofMillis(500), null))
				.satisfies((ex) -> assertThat(ex.getLockKey()).isEqualTo("order.1"))
				.satisfies((ex) -> assertThat(ex.getBackend()).isEqualTo("jdbc"));
		});
	}

	@Test
	void databaseDownAtStartupFailsStartupWhenTheTableMustBeCreated() {
		jdbcContextRunner()
			.withPropertyValues("distributelock.jdbc.dialect=postgresql",
					"distributelock.jdbc.initialize-schema=always")
			.run((context) -> {
				FailureAnalysis analysis = DistributeLockAutoConfigurationTests.failureAnalysis(context);
				assertThat(analysis.getDescription()).contains("Could not create the lock table distributelock");
				assertThat(analysis.getAction()).contains("distributelock.jdbc.initialize-schema=never");
			});
	}

	private static ApplicationContextRunner jdbcContextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc",
					"spring.datasource.url=jdbc:postgresql://127.0.0.1:" + EmbeddedRedis.freePort() + "/app",
					"spring.datasource.username=app", "spring.datasource.hikari.connection-timeout=250");
	}

	private static void assertWorksOnceTheStoreIsUp(DistributeLock lock) {
		LockHandle handle = await().atMost(Duration.ofSeconds(20))
			.ignoreException(DistributeLockException.class)
			.until(() -> lock.tryAcquire("order.1", Duration.ofSeconds(1), null).orElse(null), (held) -> held != null);
		assertThat(handle.isHeld()).isTrue();
		handle.close();
	}

}
