package io.github.distributelock.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Builds the backend a {@link LockWorker} locks with, from its arguments:
 * <ul>
 * <li>{@code backend=redis redisPort=<port>};</li>
 * <li>{@code backend=zookeeper zkConnect=<host:port,...> sessionTimeoutMs=<ms>};</li>
 * <li>{@code backend=jdbc jdbcUrl=<url> jdbcUser=<user> poolSize=<connections>}.</li>
 * </ul>
 */
final class WorkerBackends {

	/** The clients under the backends, closed after them. */
	private static final List<AutoCloseable> clients = new ArrayList<>();

	private WorkerBackends() {
	}

	static LockBackend create(Map<String, String> options) throws InterruptedException {
		String backend = options.get("backend");
		if ("redis".equals(backend)) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(options.get("redisPort"))));
			factory.afterPropertiesSet();
			factory.start();
			clients.add(factory::destroy);
			return new RedisLockBackend(factory);
		}
		if ("zookeeper".equals(backend)) {
			CuratorFramework client = CuratorFrameworkFactory.builder()
				.connectString(options.get("zkConnect"))
				.sessionTimeoutMs(Integer.parseInt(options.getOrDefault("sessionTimeoutMs", "4000")))
				.connectionTimeoutMs(5_000)
				.retryPolicy(new ExponentialBackoffRetry(100, 5))
				.build();
			client.start();
			clients.add(client);
			if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Could not connect to ZooKeeper at " + options.get("zkConnect"));
			}
			return new ZooKeeperLockBackend(client);
		}
		if ("jdbc".equals(backend)) {
			HikariConfig config = new HikariConfig();
			config.setJdbcUrl(options.get("jdbcUrl"));
			config.setUsername(options.get("jdbcUser"));
			config.setMaximumPoolSize(Integer.parseInt(options.getOrDefault("poolSize", "6")));
			HikariDataSource dataSource = new HikariDataSource(config);
			clients.add(dataSource);
			return new JdbcLockBackend(dataSource);
		}
		throw new IllegalArgumentException("Unknown backend '" + backend + "'");
	}

	static void close(LockBackend backend) throws Exception {
		try {
			if (backend instanceof AutoCloseable closeable) {
				closeable.close();
			}
		}
		finally {
			for (int i = clients.size() - 1; i >= 0; i--) {
				clients.get(i).close();
			}
		}
	}

}
