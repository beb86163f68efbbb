package io.github.distributelock.fault;

import java.util.List;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.JdbcTestDatabase;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The multi-process faults on a real PostgreSQL server: the lease is the watchdog lease,
 * on the database clock.
 */
class PostgresMultiProcessFaultTests extends AbstractMultiProcessFaultTests {

	private static final long LEASE_MILLIS = 3000;

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");

	private static JdbcTestDatabase postgres() {
		return databases.get("postgresql");
	}

	@Override
	protected List<String> backendArguments() {
		return List.of("backend=jdbc", "jdbcUrl=" + postgres().jdbcUrl(), "jdbcUser=" + postgres().username(),
				"poolSize=6", "watchdogLeaseMs=" + LEASE_MILLIS);
	}

	@Override
	protected LockBackend newBackend() {
		return new JdbcLockBackend(closeAfter(postgres().newDataSource()));
	}

	@Override
	protected boolean isLocked(String key) {
		return postgres().isLocked(key);
	}

	@Override
	protected long leaseMillis() {
		return LEASE_MILLIS;
	}

	@Override
	protected String backendName() {
		return "PostgreSQL";
	}

}
