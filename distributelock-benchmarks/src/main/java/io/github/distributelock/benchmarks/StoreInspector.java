package io.github.distributelock.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/**
 * Counts what the locks left in each store: Redis keys (and how many of them expire),
 * ZooKeeper znodes, and rows of the lock tables.
 */
final class StoreInspector implements AutoCloseable {

	private final RedisClient redisClient;

	private final StatefulRedisConnection<String, String> redis;

	private final ZooKeeper zooKeeper;

	private final HikariDataSource postgres;

	StoreInspector(Endpoints endpoints) throws Exception {
		this.redisClient = RedisClient.create(RedisURI.create("127.0.0.1", endpoints.redisPort()));
		this.redis = this.redisClient.connect();
		CountDownLatch connected = new CountDownLatch(1);
		this.zooKeeper = new ZooKeeper(endpoints.zooKeeperConnect(), 30_000, (event) -> {
			if (event.getState() == KeeperState.SyncConnected) {
				connected.countDown();
			}
		});
		if (!connected.await(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException("ZooKeeper did not connect");
		}
		this.postgres = Libraries.pool(endpoints);
	}

	Snapshot snapshot() throws Exception {
		long[] keys = redisKeys();
		return new Snapshot(keys[0], keys[1], znodes(), rows());
	}

	/** Keys and keys with an expiry, from {@code INFO keyspace}. */
	private long[] redisKeys() {
		String info = this.redis.sync().info("keyspace");
		for (String line : info.split("\r?\n")) {
			if (line.startsWith("db0:")) {
				long keys = 0;
				long expires = 0;
				for (String pair : line.substring(4).split(",")) {
					String[] parts = pair.split("=");
					if (parts[0].equals("keys")) {
						keys = Long.parseLong(parts[1]);
					}
					else if (parts[0].equals("expires")) {
						expires = Long.parseLong(parts[1]);
					}
				}
				return new long[] { keys, expires };
			}
		}
		return new long[] { 0, 0 };
	}

	/**
	 * All znodes, counted by the server (a listing of 100,000 children would not fit a
	 * reply).
	 */
	private long znodes() throws Exception {
		return this.zooKeeper.getAllChildrenNumber("/");
	}

	private long rows() throws Exception {
		long rows = 0;
		try (Connection connection = this.postgres.getConnection();
				Statement statement = connection.createStatement()) {
			for (String table : Schema.LOCK_TABLES) {
				try (ResultSet result = statement.executeQuery("SELECT count(*) FROM " + table)) {
					result.next();
					rows += result.getLong(1);
				}
			}
		}
		return rows;
	}

	@Override
	public void close() throws Exception {
		this.postgres.close();
		this.zooKeeper.close();
		this.redis.close();
		this.redisClient.shutdown();
	}

	/**
	 * What the stores held at one moment.
	 *
	 * @param redisKeys keys in Redis
	 * @param redisExpiring keys in Redis that have an expiry
	 * @param znodes znodes
	 * @param rows rows of the lock tables
	 */
	record Snapshot(long redisKeys, long redisExpiring, long znodes, long rows) {

		Snapshot minus(Snapshot before) {
			return new Snapshot(this.redisKeys - before.redisKeys, this.redisExpiring - before.redisExpiring,
					this.znodes - before.znodes, this.rows - before.rows);
		}

	}

}
