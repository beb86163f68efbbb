package io.github.distributelock.fault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import org.springframework.util.FileSystemUtils;

/**
 * A PostgreSQL server stopped and started again on the same port and data directory under
 * held and awaited locks: a server of its own, as the test stops it.
 */
class PostgresStoreOutageTests extends AbstractStoreOutageTests {

	private static final int PORT = EmbeddedRedis.freePort();

	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(2);

	private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(5);

	private static Path dataDirectory;

	private static @Nullable EmbeddedPostgres postgres;

	@BeforeAll
	static void startPostgres() throws Exception {
		dataDirectory = Files.createTempDirectory("distributelock-postgres");
		start();
		try (HikariDataSource dataSource = newDataSource()) {
			new JdbcLockBackend(dataSource).createSchema();
		}
	}

	/** Starts the server on the kept data directory, which closing it leaves in place. */
	private static void start() throws Exception {
		postgres = EmbeddedPostgres.builder()
			.setPort(PORT)
			.setDataDirectory(dataDirectory)
			.setCleanDataDirectory(false)
			.setServerConfig("listen_addresses", "127.0.0.1")
			.start();
	}

	@AfterAll
	static void stopPostgres() throws Exception {
		try {
			if (postgres != null) {
				postgres.close();
			}
		}
		finally {
			FileSystemUtils.deleteRecursively(dataDirectory);
		}
	}

	private static HikariDataSource newDataSource() {
		HikariConfig config = new HikariConfig();
		// Bounded waits on a dead server: 2 s for a connection, 5 s for an answer.
		config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + PORT + "/postgres?connectTimeout="
				+ CONNECTION_TIMEOUT.toSeconds() + "&socketTimeout=" + SOCKET_TIMEOUT.toSeconds());
		config.setUsername("postgres");
		config.setMaximumPoolSize(4);
		config.setConnectionTimeout(CONNECTION_TIMEOUT.toMillis());
		config.setInitializationFailTimeout(-1);
		return new HikariDataSource(config);
	}

	@Override
	protected LockBackend newBackend() {
		return new JdbcLockBackend(closeAfter(newDataSource()));
	}

	/**
	 * The pool's connection timeout for a connection, then the driver's socket timeout
	 * for the statement's answer.
	 */
	@Override
	protected Duration storeCallTimeout() {
		return CONNECTION_TIMEOUT.plus(SOCKET_TIMEOUT);
	}

	@Override
	protected void stopStore() throws Exception {
		EmbeddedPostgres running = postgres;
		postgres = null;
		if (running != null) {
			running.close();
		}
	}

	@Override
	protected void startStore() throws Exception {
		start();
	}

	@Override
	protected String backendName() {
		return "PostgreSQL";
	}

}
