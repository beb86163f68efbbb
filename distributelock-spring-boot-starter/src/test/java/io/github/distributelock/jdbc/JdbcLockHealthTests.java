package io.github.distributelock.jdbc;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import io.github.distributelock.LogLines;
import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.autoconfigure.DistributeLockHealthContributorAutoConfiguration;
import io.github.distributelock.redis.EmbeddedRedis;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health indicator on a real database, through the auto-configuration: up with the
 * backend and the round-trip time while the database answers, down with the error once it
 * is shut down (PostgreSQL: the server stopped; H2: the in-memory database shut down, so
 * the pool reaches a new one without the lock table), and up again once a stopped server
 * is back, with one log line for each change.
 */
@ExtendWith(OutputCaptureExtension.class)
class JdbcLockHealthTests {

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql" })
	void healthIsUpWhileTheDatabaseAnswersAndDownOnceItIsShutDown(String dialect) throws Exception {
		// A database of its own, as the test shuts it down.
		JdbcTestDatabase database = JdbcTestDatabase.start(dialect);
		AtomicBoolean closed = new AtomicBoolean();
		try {
			ApplicationContextRunner contextRunner = new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
						DistributeLockAutoConfiguration.class, DistributeLockHealthContributorAutoConfiguration.class))
				.withPropertyValues("distributelock.type=jdbc", "spring.datasource.url=" + database.jdbcUrl(),
						"spring.datasource.username=" + database.username(),
						"spring.datasource.hikari.connection-timeout=1000");
			contextRunner.run((context) -> {
				DistributeLockHealthIndicator indicator = context.getBean("distributeLockHealthIndicator",
						DistributeLockHealthIndicator.class);
				Health up = health(indicator);
				assertThat(up.getStatus()).as("%s", up).isEqualTo(Status.UP);
				assertThat(up.getDetails()).containsEntry("backend", "jdbc");
				assertThat((Double) up.getDetails().get("roundTripMs")).isPositive();
				closed.set(true);
				database.close();
				Health down = health(indicator);
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(down.getDetails()).containsEntry("backend", "jdbc")
					.containsKey("error")
					.doesNotContainKey("roundTripMs");
			});
		}
		finally {
			if (!closed.get()) {
				database.close();
			}
		}
	}

	@Test
	void healthLogsOnceWhenTheDatabaseGoesDownAndOnceWhenItIsBack(@TempDir Path directory, CapturedOutput output)
			throws Exception {
		int port = EmbeddedRedis.freePort();
		String url = "jdbc:h2:tcp://127.0.0.1:" + port + "/locks";
		Server database = startH2Server(port, directory);
		try {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
						DistributeLockAutoConfiguration.class, DistributeLockHealthContributorAutoConfiguration.class))
				.withPropertyValues("distributelock.type=jdbc", "distributelock.jdbc.initialize-schema=always",
						"distributelock.startup-check=none", "spring.datasource.url=" + url + ";PASSWORD=secret",
						"spring.datasource.hikari.connection-timeout=1000")
				.run((context) -> {
					DistributeLockHealthIndicator indicator = context.getBean(DistributeLockHealthIndicator.class);
					assertThat(health(indicator).getStatus()).isEqualTo(Status.UP);
					database.stop();
					assertThat(health(indicator).getStatus()).isEqualTo(Status.DOWN);
					assertThat(health(indicator).getStatus()).isEqualTo(Status.DOWN);
					assertThat(LogLines.containing(output, "Lock store ")).singleElement()
						.asString()
						.contains("WARN", "Lock store jdbc at " + url + " is unavailable: ")
						.doesNotContain("secret");
					Server restarted = startH2Server(port, directory);
					try {
						// Hikari checks a pooled connection only when it was idle for
						// half
						// a second, and keeps one that H2 says is broken (not SQL state
						// 08):
						// probes closer together than that would reuse it for ever.
						await().atMost(Duration.ofSeconds(30))
							.pollInterval(Duration.ofSeconds(1))
							.until(() -> health(indicator).getStatus(), Status.UP::equals);
						assertThat(health(indicator).getStatus()).isEqualTo(Status.UP);
					}
					finally {
						restarted.stop();
					}
					assertThat(LogLines.containing(output, "Lock store ")).hasSize(2)
						.last()
						.asString()
						.contains("INFO", "Lock store jdbc at " + url + " is available again.");
					LogLines.assertNoStackTraceAfter(output, "Lock store ");
				});
		}
		finally {
			database.stop();
		}
	}

	/**
	 * A database that answers but has no lock table fails every lock call, so its probe
	 * fails too; with the table, the probe leaves it as it was.
	 */
	@Test
	void healthIsDownWhileTheLockTableIsMissingAndTheProbeWritesNothing() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
					DistributeLockAutoConfiguration.class, DistributeLockHealthContributorAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc", "distributelock.jdbc.initialize-schema=never",
					"distributelock.startup-check=none",
					"spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
			.run((context) -> {
				DistributeLockHealthIndicator indicator = context.getBean(DistributeLockHealthIndicator.class);
				Health missing = health(indicator);
				assertThat(missing.getStatus()).as("%s", missing).isEqualTo(Status.DOWN);
				assertThat(missing.getDetails().get("error")).asString()
					.contains("The lock table distributelock cannot be read")
					.contains("initialize-schema=always");
				context.getBean(JdbcLockBackend.class).createSchema();
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				Health up = health(indicator);
				assertThat(up.getStatus()).as("%s", up).isEqualTo(Status.UP);
				assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM distributelock", Integer.class)).isZero();
			});
	}

	/** An H2 server keeping its databases in files, so that they outlive a restart. */
	private static Server startH2Server(int port, Path directory) throws SQLException {
		return Server
			.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists", "-baseDir", directory.toString())
			.start();
	}

	/** The health, read within a bound so that a hanging check fails the test. */
	private static Health health(DistributeLockHealthIndicator indicator) throws Exception {
		return CompletableFuture.supplyAsync(indicator::health).get(30, TimeUnit.SECONDS);
	}

}
