package io.github.distributelock.autoconfigure;

import java.time.Duration;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LogLines;
import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A store that is down when the application starts: the application starts (as Spring
 * Boot's own clients do, which connect lazily) with one warning that names the store and
 * its address, unless the starter must read the store to configure itself or
 * {@code distributelock.startup-check=fail} asks for it, in which case startup fails
 * saying what to do; lock calls fail with a {@link DistributeLockException} naming key
 * and backend, and work once the store is up, without a restart.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnreachableStoreAtStartupTests {

	private static final String STARTUP_WARNING = "is unavailable at startup: ";

	@Test
	void redisDownAtStartupFailsLockCallsClearlyUntilItIsUp(CapturedOutput output) throws Exception {
		try (EmbeddedRedis redis = EmbeddedRedis.start()) {
			redis.stop();
			redisContextRunner(redis.port()).run((context) -> {
				assertThat(context).hasNotFailed();
				String warning = awaitOneStartupWarning(output, "Lock store redis at 127.0.0.1:" + redis.port() + " ");
				assertThat(warning).contains("Unable to connect to 127.0.0.1")
					.contains("The application starts without it, and lock calls fail with DistributeLockException "
							+ "until it answers; set distributelock.startup-check=fail to stop the startup instead.");
				DistributeLock lock = context.getBean(DistributeLock.class);
				assertThatExceptionOfType(DistributeLockException.class)
					.isThrownBy(() -> lock.tryAcquire("order.1", Duration.ofMillis(500), null))
					.satisfies((ex) -> assertThat(ex.getLockKey()).isEqualTo("order.1"))
					.satisfies((ex) -> assertThat(ex.getBackend()).isEqualTo("redis"));
				redis.restart();
				assertWorksOnceTheStoreIsUp(lock);
				assertTheHealthSaysOnceThatTheStoreIsBack(context, output, "redis at 127.0.0.1:" + redis.port());
			});
		}
	}

	@Test
	void redisDownAtStartupFailsTheStartupWhenAskedTo() throws Exception {
		try (EmbeddedRedis redis = EmbeddedRedis.start()) {
			redis.stop();
			redisContextRunner(redis.port()).withPropertyValues("distributelock.startup-check=fail").run((context) -> {
				FailureAnalysis analysis = DistributeLockAutoConfigurationTests.failureAnalysis(context);
				assertThat(analysis.getDescription()).startsWith("Lock store redis at 127.0.0.1:" + redis.port()
						+ " is unavailable at startup: Unable to connect");
				assertThat(analysis.getAction()).startsWith("Start the lock store or correct its address "
						+ "(spring.data.redis.host and spring.data.redis.port, spring.data.redis.url, "
						+ "spring.data.redis.sentinel.* or spring.data.redis.cluster.nodes, or the application's "
						+ "RedisConnectionFactory bean), or set distributelock.startup-check=warn to start without it");
			});
		}
	}

	@Test
	void redisUpAtStartupPassesTheCheckThatFailsOtherwise(CapturedOutput output) throws Exception {
		try (EmbeddedRedis redis = EmbeddedRedis.start()) {
			redisContextRunner(redis.port()).withPropertyValues("distributelock.startup-check=fail").run((context) -> {
				assertThat(context).hasNotFailed();
				// The check's probe went first: the store was found up before.
				assertThat(context.getBean(LockStoreMonitor.class).check().previous())
					.isEqualTo(LockStoreMonitor.State.UP);
			});
		}
		assertThat(LogLines.containing(output, "Lock store redis")).isEmpty();
	}

	@Test
	void noCheckAtStartupProbesNothing() throws Exception {
		try (EmbeddedRedis redis = EmbeddedRedis.start()) {
			redis.stop();
			redisContextRunner(redis.port()).withPropertyValues("distributelock.startup-check=none").run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(LockStoreMonitor.class).check().previous())
					.isEqualTo(LockStoreMonitor.State.UNKNOWN);
			});
		}
	}

	@Test
	void zookeeperDownAtStartupFailsLockCallsClearlyUntilItIsUp(CapturedOutput output) throws Exception {
		try (TestingServer server = EmbeddedZooKeeper.startServer()) {
			server.stop();
			zookeeperContextRunner(server).run((context) -> {
				assertThat(context).hasNotFailed();
				String warning = awaitOneStartupWarning(output,
						"Lock store zookeeper at " + server.getConnectString() + " ");
				assertThat(warning).contains("ConnectionLoss");
				DistributeLock lock = context.getBean(DistributeLock.class);
				assertThatExceptionOfType(DistributeLockException.class)
					.isThrownBy(() -> lock.tryAcquire("order.1", Duration.ofMillis(500), null))
					.satisfies((ex) -> assertThat(ex.getLockKey()).isEqualTo("order.1"))
					.satisfies((ex) -> assertThat(ex.getBackend()).isEqualTo("zookeeper"));
				server.restart();
				assertWorksOnceTheStoreIsUp(lock);
				assertTheHealthSaysOnceThatTheStoreIsBack(context, output, "zookeeper at " + server.getConnectString());
			});
		}
	}

	@Test
	void zookeeperDownAtStartupFailsTheStartupWhenAskedTo() throws Exception {
		try (TestingServer server = EmbeddedZooKeeper.startServer()) {
			server.stop();
			zookeeperContextRunner(server).withPropertyValues("distributelock.startup-check=fail").run((context) -> {
				FailureAnalysis analysis = DistributeLockAutoConfigurationTests.failureAnalysis(context);
				assertThat(analysis.getDescription()).startsWith("Lock store zookeeper at " + server.getConnectString()
						+ " is unavailable at startup: KeeperErrorCode = ConnectionLoss");
				assertThat(analysis.getAction()).contains(
						"(distributelock.zookeeper.connect-string, or the " + "application's CuratorFramework bean)",
						"distributelock.startup-check=warn");
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
	void databaseDownAtStartupWithTheDialectSetStartsAndFailsLockCallsClearly(CapturedOutput output) {
		int port = EmbeddedRedis.freePort();
		jdbcContextRunner()
			.withPropertyValues("distributelock.jdbc.dialect=postgresql",
					"spring.datasource.url=jdbc:postgresql://127.0.0.1:" + port + "/app?user=app&password=secret")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				String warning = awaitOneStartupWarning(output,
						"Lock store jdbc at jdbc:postgresql://127.0.0.1:" + port + "/app ");
				assertThat(warning).contains("Connection refused").doesNotContain("secret");
				DistributeLock lock = context.getBean(DistributeLock.class);
				assertThatExceptionOfType(DistributeLockException.class)
					.isThrownBy(() -> lock.tryAcquire("order.1", Duration.ofMillis(500), null))
					.satisfies((ex) -> assertThat(ex.getLockKey()).isEqualTo("order.1"))
					.satisfies((ex) -> assertThat(ex.getBackend()).isEqualTo("jdbc"));
			});
	}

	@Test
	void databaseDownAtStartupFailsTheStartupWhenAskedTo() {
		int port = EmbeddedRedis.freePort();
		jdbcContextRunner()
			.withPropertyValues("distributelock.jdbc.dialect=h2", "distributelock.startup-check=fail",
					"spring.datasource.url=jdbc:h2:tcp://127.0.0.1:" + port + "/mem:locks;USER=app;PASSWORD=secret")
			.run((context) -> {
				FailureAnalysis analysis = DistributeLockAutoConfigurationTests.failureAnalysis(context);
				assertThat(analysis.getDescription())
					.startsWith("Lock store jdbc at jdbc:h2:tcp://127.0.0.1:" + port + "/mem:locks is unavailable at "
							+ "startup: ")
					.doesNotContain("secret");
				assertThat(analysis.getAction()).contains(
						"(spring.datasource.url, or the application's DataSource " + "bean)",
						"distributelock.startup-check=warn");
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

	private static ApplicationContextRunner redisContextRunner(int port) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DistributeLockAutoConfiguration.class, DistributeLockStartupCheckAutoConfiguration.class,
					DistributeLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + port, "spring.data.redis.timeout=1s",
					"spring.data.redis.connect-timeout=1s");
	}

	private static ApplicationContextRunner zookeeperContextRunner(TestingServer server) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class,
					DistributeLockStartupCheckAutoConfiguration.class,
					DistributeLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("distributelock.type=zookeeper",
					"distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.connection-timeout=1s", "distributelock.zookeeper.base-sleep=100ms",
					"distributelock.zookeeper.max-retries=1");
	}

	private static ApplicationContextRunner jdbcContextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DistributeLockAutoConfiguration.class, DistributeLockStartupCheckAutoConfiguration.class,
					DistributeLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc",
					"spring.datasource.url=jdbc:postgresql://127.0.0.1:" + EmbeddedRedis.freePort() + "/app",
					"spring.datasource.username=app", "spring.datasource.hikari.connection-timeout=250");
	}

	/**
	 * Waits for the warning of the check at startup, which probes in the background, and
	 * returns it: one line, without a stack trace, that names the store and its address.
	 */
	private static String awaitOneStartupWarning(CapturedOutput output, String store) {
		await().atMost(Duration.ofSeconds(30))
			.until(() -> LogLines.containing(output, STARTUP_WARNING), (lines) -> !lines.isEmpty());
		assertThat(LogLines.containing(output, STARTUP_WARNING)).singleElement()
			.asString()
			.contains("WARN", store + STARTUP_WARNING);
		LogLines.assertNoStackTraceAfter(output, STARTUP_WARNING);
		return LogLines.containing(output, STARTUP_WARNING).get(0);
	}

	/**
	 * The health check finds the store up: since the check at startup found it down, it
	 * says so once; the startup warning was the one warning, none other was logged.
	 */
	private static void assertTheHealthSaysOnceThatTheStoreIsBack(AssertableApplicationContext context,
			CapturedOutput output, String store) {
		DistributeLockHealthIndicator health = context.getBean(DistributeLockHealthIndicator.class);
		assertThat(health.health().getStatus()).isEqualTo(Status.UP);
		assertThat(health.health().getStatus()).isEqualTo(Status.UP);
		assertThat(LogLines.containing(output, "Lock store ")).hasSize(2)
			.last()
			.asString()
			.contains("INFO", "Lock store " + store + " is available again.");
	}

	private static void assertWorksOnceTheStoreIsUp(DistributeLock lock) {
		LockHandle handle = await().atMost(Duration.ofSeconds(20))
			.ignoreException(DistributeLockException.class)
			.until(() -> lock.tryAcquire("order.1", Duration.ofSeconds(1), null).orElse(null), (held) -> held != null);
		assertThat(handle.isHeld()).isTrue();
		handle.close();
	}

}
