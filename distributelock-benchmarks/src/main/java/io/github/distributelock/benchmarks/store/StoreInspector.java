package io.github.distributelock.benchmarks.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.benchmarks.harness.Libraries;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.StoreClients;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/**
 * Counts what the locks left in each store: Redis keys of a pattern (and how many of them
 * expire), ZooKeeper znodes, and rows of the lock tables.
 */
public final class StoreInspector implements AutoCloseable {

	private final RedisClient redisClient;

	private final StatefulRedisConnection<String, String> redis;

	private final ZooKeeper zooKeeper;

	private final HikariDataSource postgres;

	public StoreInspector(Endpoints endpoints) throws Exception {
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
		this.postgres = StoreClients.pool(endpoints);
	}

	/**
	 * What the stores hold now.
	 * @param redisPattern the Redis keys to count, as a {@code SCAN MATCH} pattern: the
	 * keys of other libraries may be expiring meanwhile
	 * @return the counts
	 * @throws Exception if a store fails
	 */
	public Snapshot snapshot(String redisPattern) throws Exception {
		long[] keys = redisKeys(redisPattern);
		return new Snapshot(keys[0], keys[1], znodes(), rows());
	}

	/** Keys that match, and how many of them expire. */
	private long[] redisKeys(String pattern) throws Exception {
		List<String> keys = new ArrayList<>();
		ScanArgs match = ScanArgs.Builder.matches(pattern).limit(1000);
		KeyScanCursor<String> cursor = this.redis.sync().scan(match);
		keys.addAll(cursor.getKeys());
		while (!cursor.isFinished()) {
			cursor = this.redis.sync().scan(cursor, match);
			keys.addAll(cursor.getKeys());
		}
		List<RedisFuture<Long>> ttls = new ArrayList<>();
		for (String key : keys) {
			ttls.add(this.redis.async().pttl(key));
		}
		long expiring = 0;
		for (RedisFuture<Long> ttl : ttls) {
			Long millis = ttl.get(30, TimeUnit.SECONDS);
			if (millis != null && millis >= 0) {
				expiring++;
			}
		}
		return new long[] { keys.size(), expiring };
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
	public record Snapshot(long redisKeys, long redisExpiring, long znodes, long rows) {

		public Snapshot minus(Snapshot before) {
			return new Snapshot(this.redisKeys - before.redisKeys, this.redisExpiring - before.redisExpiring,
					this.znodes - before.znodes, this.rows - before.rows);
		}

	}

}
