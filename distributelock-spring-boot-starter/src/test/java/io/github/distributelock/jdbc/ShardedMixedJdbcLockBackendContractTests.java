package io.github.distributelock.jdbc;

import java.util.List;

import io.github.distributelock.core.LockBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract on a lock table spread over a PostgreSQL server and a MariaDB server, each
 * shard with its own dialect.
 */
class ShardedMixedJdbcLockBackendContractTests extends AbstractShardedJdbcLockBackendContractTests {

	private static List<JdbcTestDatabase> databases = List.of();

	@BeforeAll
	static void startDatabases() {
		databases = ShardedDatabases.start("postgresql", "mariadb");
	}

	@AfterAll
	static void stopDatabases() throws Exception {
		ShardedDatabases.stop(databases);
	}

	@Override
	List<JdbcTestDatabase> databases() {
		return databases;
	}

	@Override
	protected LockBackend newBackend() {
		ShardedJdbcLockBackend backend = (ShardedJdbcLockBackend) super.newBackend();
		assertThat(backend.shards().values()).extracting(JdbcLockBackend::dialect)
			.containsExactly("postgresql", "mariadb");
		return backend;
	}

}
