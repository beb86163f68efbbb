package io.github.distributelock.jdbc;

import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract on a lock table spread over two PostgreSQL servers.
 */
class ShardedPostgresJdbcLockBackendContractTests extends AbstractShardedJdbcLockBackendContractTests {

	private static List<JdbcTestDatabase> databases = List.of();

	@BeforeAll
	static void startDatabases() {
		databases = ShardedDatabases.start("postgresql", "postgresql");
	}

	@AfterAll
	static void stopDatabases() throws Exception {
		ShardedDatabases.stop(databases);
	}

	@Override
	List<JdbcTestDatabase> databases() {
		return databases;
	}

}
