package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plain lock in each compatibility mode of H2 that docs/backends/jdbc.md says it
 * serves: what a release writes into the row must be storable there too (Oracle mode
 * stores an empty string as NULL, which the owner column refuses).
 */
class JdbcLockBackendH2ModesTests {

	@ParameterizedTest
	@ValueSource(
			strings = { "Oracle", "PostgreSQL", "MySQL", "MariaDB", "MSSQLServer", "DB2", "Derby", "HSQLDB", "LEGACY" })
	void aReleasedPlainLockIsFreeForAnotherOwner(String mode) throws Exception {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:h2:mem:distributelock-modes-" + UUID.randomUUID() + ";MODE=" + mode);
		config.setUsername("sa");
		config.setMinimumIdle(1);
		config.setMaximumPoolSize(2);
		try (HikariDataSource pool = new HikariDataSource(config)) {
			JdbcLockBackend backend = new JdbcLockBackend(pool);
			backend.createSchema();
			try (DefaultDistributeLock first = new DefaultDistributeLock(backend);
					DefaultDistributeLock second = new DefaultDistributeLock(backend)) {
				LockRequest request = LockRequest.of("released-in-" + mode).withWaitTime(Duration.ZERO);
				Optional<LockHandle> held = first.tryAcquire(request);
				assertThat(held).isPresent();
				assertThat(second.tryAcquire(request)).as("taken while held").isEmpty();
				held.get().close();
				Optional<LockHandle> next = second.tryAcquire(request);
				assertThat(next).as("taken after the release").isPresent();
				next.get().close();
			}
			finally {
				backend.close();
			}
		}
	}

}
