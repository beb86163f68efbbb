package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.jdbc.JdbcLockBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A clean shutdown on an H2 database: no row of the instance is left held in the lock
 * table (a released row stays, free, with its lease ended, for the released-row
 * retention), and the locks are released before the DataSource the auto-configuration
 * built is closed.
 */
class JdbcShutdownTests extends AbstractShutdownTests {

	private static final String URL = "jdbc:h2:mem:shutdown-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

	private static HikariDataSource inspection;

	private static JdbcTemplate store;

	@BeforeAll
	static void createTheLockTable() {
		inspection = newDataSource();
		store = new JdbcTemplate(inspection);
		new JdbcLockBackend(inspection).createSchema();
	}

	@AfterAll
	static void shutDownTheDatabase() {
		if (inspection != null) {
			try {
				store.execute("SHUTDOWN");
			}
			finally {
				inspection.close();
			}
		}
	}

	private static HikariDataSource newDataSource() {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(URL);
		dataSource.setUsername("sa");
		dataSource.setMaximumPoolSize(2);
		return dataSource;
	}

	@Override
	protected String backendName() {
		return "jdbc";
	}

	@Override
	protected ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc", "spring.datasource.url=" + URL,
					"spring.datasource.username=sa");
	}

	@Override
	protected Class<?> countingBackendConfiguration() {
		return CountingBackendConfiguration.class;
	}

	@Override
	protected Class<?> storeClientType() {
		return DataSource.class;
	}

	@Override
	protected DefaultDistributeLock otherInstance() {
		HikariDataSource dataSource = closeAfterTest(newDataSource());
		return closeAfterTest(new DefaultDistributeLock(new JdbcLockBackend(dataSource)));
	}

	/** The rows whose lease still runs, on the database clock. */
	@Override
	protected Set<String> heldKeysInStore() {
		return Set.copyOf(store.queryForList("SELECT lock_key FROM distributelock WHERE expires_at > CURRENT_TIMESTAMP",
				String.class));
	}

	@Test
	void releasedRowsStayFreeForTheRetention() {
		contextRunner().withUserConfiguration(CountingBackendConfiguration.class).run((context) -> {
			DefaultDistributeLock lock = context.getBean(DefaultDistributeLock.class);
			lock.tryAcquire("shutdown.kept", Duration.ZERO, null).orElseThrow();
			context.close();
		});
		assertThat(heldKeysInStore()).doesNotContain("shutdown.kept");
		assertThat(store.queryForList(
				"SELECT lock_key FROM distributelock WHERE lock_key = ? AND expires_at <= CURRENT_TIMESTAMP",
				String.class, "shutdown.kept"))
			.as("the released row, kept free")
			.containsExactly("shutdown.kept");
	}

	@Configuration(proxyBeanMethods = false)
	static class CountingBackendConfiguration {

		@Bean
		CountingLockBackend countingLockBackend(DataSource dataSource) {
			return CountingLockBackend.of(new JdbcLockBackend(dataSource));
		}

	}

}
