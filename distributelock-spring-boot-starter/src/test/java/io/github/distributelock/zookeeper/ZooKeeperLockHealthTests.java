package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.LogLines;
import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.autoconfigure.DistributeLockHealthContributorAutoConfiguration;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health indicator on a real ZooKeeper server, through the auto-configuration: up
 * with the backend and the round-trip time while the server answers, down with the error
 * while it is stopped, and up again once it is back, with one log line for each change.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZooKeeperLockHealthTests {

	@Test
	void healthFollowsTheServerAndLogsEachChangeOnce(CapturedOutput output) throws Exception {
		// A server of its own, as the test stops it.
		try (TestingServer server = EmbeddedZooKeeper.startServer()) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class,
						DistributeLockHealthContributorAutoConfiguration.class))
				.withPropertyValues("distributelock.type=zookeeper",
						"distributelock.zookeeper.connect-string=" + server.getConnectString(),
						"distributelock.zookeeper.connection-timeout=1s", "distributelock.zookeeper.base-sleep=100ms",
						"distributelock.zookeeper.max-retries=1", "distributelock.startup-check=none")
				.run((context) -> {
					DistributeLockHealthIndicator indicator = context.getBean("distributeLockHealthIndicator",
							DistributeLockHealthIndicator.class);
					String store = "Lock store zookeeper at " + server.getConnectString() + " ";
					Health up = health(indicator);
					assertThat(up.getStatus()).isEqualTo(Status.UP);
					assertThat(up.getDetails()).containsEntry("backend", "zookeeper");
					assertThat((Double) up.getDetails().get("roundTripMs")).isPositive();
					server.stop();
					Health down = health(indicator);
					assertThat(down.getStatus()).isEqualTo(Status.DOWN);
					assertThat(down.getDetails()).containsEntry("backend", "zookeeper")
						.doesNotContainKey("roundTripMs");
					assertThat((String) down.getDetails().get("error")).contains("ConnectionLoss");
					assertThat(health(indicator).getStatus()).isEqualTo(Status.DOWN);
					assertThat(LogLines.containing(output, "Lock store ")).singleElement()
						.asString()
						.contains("WARN", store + "is unavailable: KeeperErrorCode = ConnectionLoss");
					server.restart();
					await().atMost(Duration.ofSeconds(30))
						.until(() -> health(indicator).getStatus(), Status.UP::equals);
					assertThat(health(indicator).getStatus()).isEqualTo(Status.UP);
					assertThat(LogLines.containing(output, "Lock store ")).hasSize(2)
						.last()
						.asString()
						.contains("INFO", store + "is available again.");
					LogLines.assertNoStackTraceAfter(output, "Lock store ");
				});
		}
	}

	/** The health, read within a bound so that a hanging check fails the test. */
	private static Health health(DistributeLockHealthIndicator indicator) throws Exception {
		return CompletableFuture.supplyAsync(indicator::health).get(30, TimeUnit.SECONDS);
	}

}
