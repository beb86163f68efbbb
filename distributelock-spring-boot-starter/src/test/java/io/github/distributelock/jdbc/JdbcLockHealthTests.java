package io.github.distributelock.jdbc;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The health indicator on a real database, through the auto-configuration: up with the
 * backend and the round-trip time while the database answers, down with the error once it
 * is shut down (PostgreSQL: the server stopped; H2: the in-memory database shut down, so
 * the pool reaches a new one without the lock table).
 */
class JdbcLockHealthTests {

	@ParameterizedTest
	@ValueSource(strings = { "h2", "postgresql" })
	void healthIsUpWhileTheDatabaseAnswersAndDownOnceItIsShutDown(String dialect) throws Exception {
		JdbcTestDatabase database = JdbcTestDatabase.start(dialect);
		AtomicBoolean closed = new AtomicBoolean();
		try {
			ApplicationContextRunner contextRunner = new ApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(DataSourceAutoConfiguration.class, DistributeLockAutoConfiguration.class))
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

	/** The health, read within a bound so that a hanging check fails the test. */
	private static Health health(DistributeLockHealthIndicator indicator) throws Exception {
		return CompletableFuture.supplyAsync(indicator::health).get(30, TimeUnit.SECONDS);
	}

}
