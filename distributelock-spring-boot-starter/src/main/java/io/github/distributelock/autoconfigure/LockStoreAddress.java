package io.github.distributelock.autoconfigure;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.distributelock.jdbc.ShardedJdbcLockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSocketConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Where the lock store is, for messages: read from the store's client, without
 * credentials, and where the application configures it. Each store's lookup is in a class
 * of its own, loaded only when that store's library is present.
 */
final class LockStoreAddress {

	private static final Log logger = LogFactory.getLog(LockStoreAddress.class);

	private LockStoreAddress() {
	}

	/**
	 * The address of the store the backend named {@code backendName} uses, such as
	 * {@code 127.0.0.1:6379}, or {@code null} when it cannot be told.
	 */
	static @Nullable String of(@Nullable String backendName, ListableBeanFactory beans,
			@Nullable ClassLoader classLoader) {
		if (backendName == null) {
			return null;
		}
		try {
			return switch (backendName) {
				case "redis" -> isPresent(LockType.REDIS, classLoader) ? Redis.address(beans) : null;
				case "zookeeper" -> isPresent(LockType.ZOOKEEPER, classLoader) ? ZooKeeper.address(beans) : null;
				case "jdbc" -> isPresent(LockType.JDBC, classLoader) ? Jdbc.address(beans) : null;
				default -> null;
			};
		}
		catch (RuntimeException ex) {
			// Only messages are missing the address: not worth failing the startup for.
			logger.debug("Could not tell the address of the lock store " + backendName, ex);
			return null;
		}
	}

	/**
	 * Where the application sets the address of the store the backend named
	 * {@code backendName} uses, or {@code null} for a store of its own: with JDBC shards,
	 * the property that names them, as the application's {@code DataSource} holds no
	 * lock.
	 */
	static @Nullable String configuredBy(@Nullable String backendName, ListableBeanFactory beans,
			@Nullable ClassLoader classLoader) {
		if ("jdbc".equals(backendName) && isPresent(LockType.JDBC, classLoader)) {
			String shards = Jdbc.shardNames(beans);
			if (shards != null) {
				return "distributelock.jdbc.shards, and the DataSource beans it names: " + shards;
			}
		}
		return configuredBy(backendName);
	}

	/**
	 * Where the application sets the address of the store the backend named
	 * {@code backendName} uses without shards, or {@code null} for a store of its own.
	 */
	static @Nullable String configuredBy(@Nullable String backendName) {
		if (backendName == null) {
			return null;
		}
		return switch (backendName) {
			case "redis" -> "spring.data.redis.host and spring.data.redis.port, spring.data.redis.url, "
					+ "spring.data.redis.sentinel.* or spring.data.redis.cluster.nodes, or the application's "
					+ "RedisConnectionFactory bean";
			case "zookeeper" -> "distributelock.zookeeper.connect-string, or the application's CuratorFramework bean";
			case "jdbc" -> "spring.datasource.url, or the application's DataSource bean";
			default -> null;
		};
	}

	/**
	 * A JDBC URL without what may hold credentials: the user information before
	 * {@code @}, the user and password of MySQL's host specifications in parentheses, and
	 * the parameters after {@code ?} or {@code ;}.
	 */
	static String withoutCredentials(String jdbcUrl) {
		// Connector/J takes them in the host part too, where no ? or @ marks them:
		// address=(host=db)(user=app)(password=secret) and
		// (host=db,user=app,password=secret). Removed first, so that a ?, ; or @ in a
		// password cannot hide the rest of it.
		String url = jdbcUrl.replaceAll("(?i)\\((?:user|password)=[^),]*\\)", "");
		url = url.replaceAll("(?i),\\s*(?:user|password)=[^,)]*", "");
		url = url.replaceAll("(?i)\\(\\s*(?:user|password)=[^,)]*,\\s*", "(");
		// Connector/J reads jdbc:mysql://user:secret@host up to the first @ before any
		// /, ? or #: a ; is part of the password there, so it goes before the parameters.
		url = url.replaceFirst("(?i)^(jdbc:mysqlx?(?::[a-z]+)?://)[^/?#@]*@", "$1");
		int parameters = indexOfAny(url, '?', ';');
		if (parameters >= 0) {
			url = url.substring(0, parameters);
		}
		// jdbc:mysql://user:secret@host/db, and Oracle's
		// jdbc:oracle:thin:user/secret@host
		url = url.replaceFirst("//[^/@]*@", "//");
		return url.replaceFirst("^(jdbc:oracle:[a-z]+:)[^@/]+/[^@]*@", "$1@");
	}

	private static int indexOfAny(String text, char... characters) {
		int first = -1;
		for (char character : characters) {
			int index = text.indexOf(character);
			if (index >= 0 && (first < 0 || index < first)) {
				first = index;
			}
		}
		return first;
	}

	private static boolean isPresent(LockType type, @Nullable ClassLoader classLoader) {
		return type.missingClass(classLoader).isEmpty();
	}

	private static final class Redis {

		static @Nullable String address(ListableBeanFactory beans) {
			RedisConnectionFactory factory = beans.getBeanProvider(RedisConnectionFactory.class).getIfAvailable();
			if (!(factory instanceof LettuceConnectionFactory lettuce)) {
				return null;
			}
			if (lettuce.isClusterAware()) {
				RedisConfiguration.ClusterConfiguration cluster = lettuce.getClusterConfiguration();
				return (cluster != null) ? "cluster nodes " + nodes(cluster.getClusterNodes()) : null;
			}
			if (lettuce.isRedisSentinelAware()) {
				RedisConfiguration.SentinelConfiguration sentinel = lettuce.getSentinelConfiguration();
				return (sentinel != null)
						? "master " + sentinel.getMaster().getName() + " of sentinels " + nodes(sentinel.getSentinels())
						: null;
			}
			RedisSocketConfiguration socket = lettuce.getSocketConfiguration();
			if (socket != null) {
				return "socket " + socket.getSocket();
			}
			return lettuce.getHostName() + ":" + lettuce.getPort();
		}

		private static String nodes(Collection<RedisNode> nodes) {
			return nodes.stream().map(RedisNode::asString).collect(Collectors.joining(", "));
		}

	}

	private static final class ZooKeeper {

		static @Nullable String address(ListableBeanFactory beans) {
			CuratorFramework client = beans.getBeanProvider(CuratorFramework.class).getIfUnique();
			return (client != null) ? client.getZookeeperClient().getCurrentConnectionString() : null;
		}

	}

	private static final class Jdbc {

		/** The URL properties of the connection pools and drivers' data sources. */
		private static final List<String> URL_PROPERTIES = List.of("jdbcUrl", "url", "URL");

		/**
		 * The address of the lock table's database, or with shards each shard's name and
		 * the address of its {@code DataSource} bean of that name, where there is one.
		 */
		static @Nullable String address(ListableBeanFactory beans) {
			ShardedJdbcLockBackend sharded = beans.getBeanProvider(ShardedJdbcLockBackend.class).getIfUnique();
			if (sharded != null) {
				List<String> shards = new ArrayList<>();
				for (String name : sharded.shards().keySet()) {
					String url = beans.containsBean(name) && beans.isTypeMatch(name, DataSource.class)
							? url(beans.getBean(name, DataSource.class)) : null;
					shards.add((url != null) ? name + " (" + url + ")" : name);
				}
				return "the shards " + String.join(", ", shards);
			}
			return url(beans.getBeanProvider(DataSource.class).getIfUnique());
		}

		/** The names of the shards, or {@code null} without shards. */
		static @Nullable String shardNames(ListableBeanFactory beans) {
			ShardedJdbcLockBackend sharded = beans.getBeanProvider(ShardedJdbcLockBackend.class).getIfUnique();
			return (sharded != null) ? String.join(", ", sharded.shards().keySet()) : null;
		}

		private static @Nullable String url(@Nullable DataSource database) {
			DataSource dataSource = database;
			while (dataSource instanceof DelegatingDataSource delegating) {
				dataSource = delegating.getTargetDataSource();
			}
			if (dataSource == null) {
				return null;
			}
			BeanWrapper pool = new BeanWrapperImpl(dataSource);
			for (String property : URL_PROPERTIES) {
				if (pool.isReadableProperty(property) && pool.getPropertyValue(property) instanceof String url
						&& !url.isBlank()) {
					return withoutCredentials(url);
				}
			}
			return null;
		}

	}

}
