package io.github.distributelock.fault;

import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * A caller's deadline on a slow or vanishing PostgreSQL server.
 */
class PostgresDeadlineFaultTests extends AbstractDeadlineFaultTests {

	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(1);

	private static EmbeddedPostgres postgres;

	@BeforeAll
	static void startPostgres() throws Exception {
		postgres = EmbeddedPostgres.builder()
			.setPort(EmbeddedRedis.freePort())
			.setServerConfig("listen_addresses", "127.0.0.1")
			.start();
		try (HikariDataSource dataSource = newDataSource(postgres.getPort())) {
			new JdbcLockBackend(dataSource).createSchema();
		}
	}

	@AfterAll
	static void stopPostgres() throws Exception {
		if (postgres != null) {
			postgres.close();
		}
	}

	private static HikariDataSource newDataSource(int port) {
		HikariConfig config = new HikariConfig();
		// A cut connection fails at once; a new one is given up after the pool's timeout.
		config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=1&socketTimeout=5");
		config.setUsername("postgres");
		config.setMaximumPoolSize(4);
		config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
		config.setInitializationFailTimeout(-1);
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
	protected String backendName() {
		return "PostgreSQL";
	}

	/**
	 * Two round trips: a table sends no release notification, so the waiter polls the
	 * row, and a poll under way when the wait ends is answered (on the caller's thread,
	 * which runs the statement) before the last attempt.
	 */
	@Override
	protected Duration allowedOverrun() {
		return ROUND_TRIP.multipliedBy(2);
	}

	/** The pool's timeout for a connection: a statement on a cut one fails at once. */
	@Override
	protected Duration storeCallTimeout() {
		return CONNECTION_TIMEOUT;
	}

}
