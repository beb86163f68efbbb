package io.github.distributelock.benchmarks.library;

import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The store clients that several libraries share, each built as an application would
 * build it, so that ours and the peers on one store talk to it through the same client.
 */
public final class StoreClients {

	private StoreClients() {
	}

	/**
	 * A started Lettuce connection factory with Spring Boot's defaults (one shared
	 * connection).
	 * @param endpoints the servers
	 * @return the factory; destroy it after use
	 */
	public static LettuceConnectionFactory redisConnectionFactory(Endpoints endpoints) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", endpoints.redisPort()));
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * A HikariCP pool, as Spring Boot would configure one, of at most 8 connections.
	 * @param endpoints the servers
	 * @return the pool; close it after use
	 */
	public static HikariDataSource pool(Endpoints endpoints) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(endpoints.jdbcUrl());
		config.setUsername("postgres");
		config.setMaximumPoolSize(8);
		return new HikariDataSource(config);
	}

	/**
	 * A started, connected Curator client with Curator's usual retry policy, for ours and
	 * for Curator's own recipes alike.
	 * @param endpoints the servers
	 * @return the client; close it after use
	 * @throws InterruptedException if interrupted while it connects
	 */
	public static CuratorFramework curator(Endpoints endpoints) throws InterruptedException {
		CuratorFramework client = CuratorFrameworkFactory.newClient(endpoints.zooKeeperConnect(),
				new ExponentialBackoffRetry(100, 3));
		client.start();
		if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("ZooKeeper did not connect");
		}
		return client;
	}

}
