package io.github.distributelock.fault;

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
 * Connection cuts between a connection pool and a real PostgreSQL server: the lease is
 * the watchdog lease, on the database clock.
 */
class PostgresConnectionCutTests extends AbstractConnectionCutTests {

	private static EmbeddedPostgres postgres;

	private static HikariDataSource inspection;

	@BeforeAll
	static void startPostgres() throws Exception {
		postgres = EmbeddedPostgres.builder()
			.setPort(EmbeddedRedis.freePort())
			.setServerConfig("listen_addresses", "127.0.0.1")
			.start();
		inspection = newDataSource(postgres.getPort());
		new JdbcLockBackend(inspection).createSchema();
	}

	@AfterAll
	static void stopPostgres() throws Exception {
		try {
			if (inspection != null) {
				inspection.close();
			}
		}
		finally {
			if (postgres != null) {
				postgres.close();
			}
		}
	}

	private static HikariDataSource newDataSource(int port) {
		HikariConfig config = new HikariConfig();
		// Below the lease: 1 s for a connection, 2 s for an answer.
		config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=1&socketTimeout=2");
		config.setUsername("postgres");
		config.setMaximumPoolSize(4);
		config.setConnectionTimeout(1_000);
		return new HikariDataSource(config);
	}

	@Override
	protected LockBackend newBackend(int port) {
		return new JdbcLockBackend(closeAfter(newDataSource(port)));
	}

	@Override
	protected int storePort() {
		return postgres.getPort();
	}

	@Override
	protected boolean isLocked(String key) {
		Integer rows = new JdbcTemplate(inspection).queryForObject(
				"SELECT COUNT(*) FROM distributelock WHERE lock_key = ? AND expires_at > CURRENT_TIMESTAMP",
				Integer.class, key);
		return rows != null && rows > 0;
	}

	@Override
	protected String backendName() {
		return "PostgreSQL";
	}

}
