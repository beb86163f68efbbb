package io.github.distributelock.autoconfigure;

import java.time.Duration;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LogLines;
import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistributeLockHealthContributorAutoConfiguration}: the health
 * indicator of the lock store, on a real redis-server.
 */
@ExtendWith(OutputCaptureExtension.class)
class DistributeLockHealthContributorAutoConfigurationTests {

	/** A frame of every stack trace of a failed probe. */
	private static final String PROBE_FRAME = "at " + LockStoreMonitor.class.getName() + ".check(";

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				DistributeLockAutoConfiguration.class, DistributeLockHealthContributorAutoConfiguration.class))
		.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.port());

	@Test
	void healthIsUpWithTheBackendAndTheRoundTripTime() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(DistributeLockHealthIndicator.class);
			Health health = context.getBean("distributeLockHealthIndicator", DistributeLockHealthIndicator.class)
				.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("backend", "redis").containsKey("roundTripMs");
			assertThat((Double) health.getDetails().get("roundTripMs")).isPositive();
		});
	}

	@Test
	void healthIsDownWhenTheStoreIsGone() throws Exception {
		EmbeddedRedis stopped = EmbeddedRedis.start();
		int port = stopped.port();
		stopped.close();
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=" + port, "spring.data.redis.connect-timeout=2s",
					"spring.data.redis.timeout=2s")
			.run((context) -> {
				Health health = context.getBean(DistributeLockHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsEntry("backend", "redis").containsKey("error");
			});
	}

	@Test
	void healthLogsOnceWhenTheStoreGoesDownAndOnceWhenItIsBack(CapturedOutput output) throws Exception {
		try (EmbeddedRedis store = EmbeddedRedis.start()) {
			this.contextRunner
				.withPropertyValues("spring.data.redis.port=" + store.port(), "spring.data.redis.connect-timeout=500ms",
						"spring.data.redis.timeout=500ms")
				.run((context) -> {
					DistributeLockHealthIndicator indicator = context.getBean(DistributeLockHealthIndicator.class);
					String storeName = "Lock store redis at 127.0.0.1:" + store.port() + " ";
					assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
					store.stop();
					for (int probe = 0; probe < 3; probe++) {
						assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
					}
					assertThat(LogLines.containing(output, "Lock store ")).singleElement()
						.asString()
						.contains("WARN", storeName + "is unavailable: ",
								"Lock calls fail with DistributeLockException until it answers.");
					LogLines.assertNoStackTraceAfter(output, "Lock store ");
					store.restart();
					await().atMost(Duration.ofSeconds(20))
						.until(() -> indicator.health().getStatus(), Status.UP::equals);
					assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
					assertThat(LogLines.containing(output, "Lock store ")).hasSize(2)
						.last()
						.asString()
						.contains("INFO", storeName + "is available again.");
					assertThat(output.getAll()).doesNotContain(PROBE_FRAME);
				});
		}
	}

	@Test
	void theStackTraceOfAFailedProbeIsLoggedAtDebug(CapturedOutput output) throws Exception {
		LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
		EmbeddedRedis stopped = EmbeddedRedis.start();
		stopped.close();
		this.contextRunner.withPropertyValues("spring.data.redis.port=" + stopped.port()).run((context) -> {
			logging.setLogLevel(LockStoreMonitor.class.getName(), LogLevel.DEBUG);
			try {
				context.getBean(DistributeLockHealthIndicator.class).health();
				context.getBean(DistributeLockHealthIndicator.class).health();
			}
			finally {
				logging.setLogLevel(LockStoreMonitor.class.getName(), null);
			}
			assertThat(LogLines.containing(output, "failed its probe")).hasSize(2)
				.allSatisfy((line) -> assertThat(line).contains("DEBUG",
						"Lock store redis at 127.0.0.1:" + stopped.port() + " failed its probe"));
			assertThat(LogLines.containing(output, PROBE_FRAME)).hasSize(2);
		});
	}

	@Test
	void healthIndicatorCanBeTurnedOff() {
		this.contextRunner.withPropertyValues("management.health.distributelock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DistributeLockHealthIndicator.class));
	}

	@Test
	void withoutSpringBootHealthThereIsNoHealthIndicator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DistributeLockHealthIndicator.class)
				.hasSingleBean(DistributeLock.class));
	}

	@Test
	void withDistributeLockTurnedOffThereIsNoHealthIndicator() {
		this.contextRunner.withPropertyValues("distributelock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LockStoreMonitor.class)
				.doesNotHaveBean(DistributeLockHealthIndicator.class));
	}

}
