package io.github.distributelock.fault;

import java.util.List;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The multi-process faults on a real PostgreSQL server: the lease is the watchdog lease,
 * on the database clock.
 */
class PostgresMultiProcessFaultTests extends AbstractMultiProcessFaultTests {

	private static final long LEASE_MILLIS = 3000;

	private static EmbeddedPostgres postgres;

	private static HikariDataSource dataSource;

	@BeforeAll
	static void startPostgres() throws Exception {
		postgres = EmbeddedPostgres.builder()
			.setPort(EmbeddedRedis.freePort())
			.setServerConfig("listen_addresses", "127.0.0.1")
			.setServerConfig("max_connections", "100")
			.start();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(jdbcUrl());
		config.setUsername("postgres");
		config.setMaximumPoolSize(4);
		dataSource = new HikariDataSource(config);
		new JdbcLockBackend(dataSource).createSchema();
	}

	@AfterAll
	static void stopPostgres() throws Exception {
		try {
			if (dataSource != null) {
				dataSource.close();
			}
		}
		finally {
			if (postgres != null) {
				postgres.close();
			}
		}
	}

	private static String jdbcUrl() {
		return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
	}

	@Override
	protected List<String> backendArguments() {
		return List.of("backend=jdbc", "jdbcUrl=" + jdbcUrl(), "jdbcUser=postgres", "poolSize=6",
				"watchdogLeaseMs=" + LEASE_MILLIS);
	}

	@Override
	protected LockBackend newBackend() {
		return new JdbcLockBackend(dataSource);
	}

	@Override
	protected boolean isLocked(String key) {
		Integer rows = new JdbcTemplate(dataSource).queryForObject(
				"SELECT COUNT(*) FROM distributelock WHERE lock_key = ? AND expires_at > CURRENT_TIMESTAMP",
				Integer.class, key);
		return rows != null && rows > 0;
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
