package io.github.distributelock.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.benchmarks.floor.JdbcFloor;
import io.github.distributelock.benchmarks.floor.LettuceFloor;
import io.github.distributelock.benchmarks.floor.ZooKeeperFloor;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.library.StoreClients;
import io.github.distributelock.benchmarks.ours.LockableLibrary;
import io.github.distributelock.benchmarks.ours.MemoryLockBackend;
import io.github.distributelock.benchmarks.ours.OursLibrary;
import io.github.distributelock.benchmarks.peer.CuratorLibrary;
import io.github.distributelock.benchmarks.peer.Lock4jLibrary;
import io.github.distributelock.benchmarks.peer.RedissonLibrary;
import io.github.distributelock.benchmarks.peer.ShedLockLibrary;
import io.github.distributelock.benchmarks.peer.SpringIntegrationJdbcLibrary;
import io.github.distributelock.benchmarks.peer.SpringIntegrationRedisLibrary;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * The libraries measured, by name: the store, then who. Names ending in {@code -floor}
 * are the raw-client floor of their store, {@code -ours-*} are this project.
 */
public final class Libraries {

	public static final String REDIS_FLOOR = "redis-floor";

	public static final String REDIS_OURS_TRYLOCK = "redis-ours-trylock";

	public static final String REDIS_OURS_HANDLE = "redis-ours-handle";

	public static final String REDIS_OURS_LOCKABLE = "redis-ours-lockable";

	public static final String REDIS_REDISSON = "redis-redisson";

	public static final String REDIS_SI_SPIN = "redis-si-spin";

	public static final String REDIS_SI_PUBSUB = "redis-si-pubsub";

	public static final String REDIS_LOCK4J = "redis-lock4j";

	public static final String MEMORY_OURS_HANDLE = "memory-ours-handle";

	public static final String MEMORY_OURS_LOCKABLE = "memory-ours-lockable";

	public static final String ZK_FLOOR = "zookeeper-floor";

	/** The floor of two keys taken in one transaction, beside the multi-key rows. */
	public static final String ZK_FLOOR_TWO_KEYS = "zookeeper-floor-two-keys";

	public static final String ZK_OURS_TRYLOCK = "zookeeper-ours-trylock";

	public static final String ZK_OURS_HANDLE = "zookeeper-ours-handle";

	public static final String ZK_CURATOR = "zookeeper-curator";

	public static final String ZK_CURATOR_PER_THREAD = "zookeeper-curator-session-per-thread";

	public static final String JDBC_FLOOR = "jdbc-floor";

	public static final String JDBC_OURS_TRYLOCK = "jdbc-ours-trylock";

	public static final String JDBC_OURS_HANDLE = "jdbc-ours-handle";

	public static final String JDBC_SI = "jdbc-si";

	public static final String JDBC_SHEDLOCK = "jdbc-shedlock";

	private Libraries() {
	}

	/** Every library this build can measure, in the order of the report. */
	public static List<String> all() {
		List<String> names = new ArrayList<>(List.of(REDIS_FLOOR, REDIS_OURS_TRYLOCK, REDIS_OURS_HANDLE,
				REDIS_OURS_LOCKABLE, REDIS_REDISSON, REDIS_SI_SPIN, REDIS_SI_PUBSUB, REDIS_LOCK4J));
		names.addAll(List.of(MEMORY_OURS_HANDLE, MEMORY_OURS_LOCKABLE));
		names.addAll(List.of(ZK_FLOOR, ZK_OURS_TRYLOCK, ZK_OURS_HANDLE, ZK_CURATOR, ZK_CURATOR_PER_THREAD));
		names.addAll(List.of(JDBC_FLOOR, JDBC_OURS_TRYLOCK, JDBC_OURS_HANDLE, JDBC_SI, JDBC_SHEDLOCK));
		return names;
	}

	/**
	 * Every library of the run: those of the page's main tables, then those of the lock
	 * kinds and reactive rows ({@link KindLibraries}).
	 */
	public static List<String> known() {
		List<String> names = new ArrayList<>(all());
		names.addAll(KindLibraries.all());
		return names;
	}

	/**
	 * The libraries of the interleaved part: the uncontended ones, then engine v1's
	 * ({@link EngineV1Libraries}).
	 */
	public static List<String> interleaved() {
		List<String> names = new ArrayList<>(uncontended());
		names.addAll(EngineV1Libraries.all());
		return names;
	}

	/**
	 * The libraries of the uncontended parts: all but the shapes that differ only when
	 * threads contend.
	 */
	public static List<String> uncontended() {
		return all().stream().filter((name) -> !name.equals(ZK_CURATOR_PER_THREAD)).toList();
	}

	/**
	 * The libraries that can wait for a held lock, for the contended runs: Spring
	 * Integration's Redis registry in its default lock type (spin) and in its pub/sub
	 * one, Curator with its threads sharing one session (its documented use) and with a
	 * session per thread.
	 */
	public static List<String> contended() {
		return List.of(REDIS_FLOOR, REDIS_OURS_HANDLE, REDIS_REDISSON, REDIS_SI_SPIN, REDIS_SI_PUBSUB, ZK_FLOOR,
				ZK_OURS_HANDLE, ZK_CURATOR, ZK_CURATOR_PER_THREAD, JDBC_FLOOR, JDBC_OURS_HANDLE, JDBC_SI,
				JDBC_SHEDLOCK);
	}

	/** The libraries of the scale run: one per distinct implementation. */
	public static List<String> scale() {
		return List.of(REDIS_FLOOR, REDIS_OURS_HANDLE, REDIS_REDISSON, REDIS_SI_PUBSUB, REDIS_LOCK4J, ZK_FLOOR,
				ZK_OURS_HANDLE, ZK_CURATOR, JDBC_FLOOR, JDBC_OURS_HANDLE, JDBC_SI, JDBC_SHEDLOCK);
	}

	/** How the page names a library. */
	public static String label(String name) {
		return switch (name) {
			case REDIS_FLOOR -> "floor: Lettuce SET NX PX + EVALSHA delete";
			case REDIS_OURS_TRYLOCK -> "**distributelock** tryLock / releaseLock";
			case REDIS_OURS_HANDLE -> "**distributelock** tryAcquire + close";
			case REDIS_OURS_LOCKABLE -> "**distributelock** @Lockable, 2 SpEL fields";
			case REDIS_REDISSON -> "Redisson RLock lock / unlock";
			case REDIS_SI_SPIN -> "Spring Integration RedisLockRegistry SPIN_LOCK (its default)";
			case REDIS_SI_PUBSUB -> "Spring Integration RedisLockRegistry PUB_SUB_LOCK";
			case REDIS_LOCK4J -> "lock4j LockTemplate, RedisTemplate executor";
			case MEMORY_OURS_HANDLE -> "**distributelock** tryAcquire + close, in-memory backend";
			case MEMORY_OURS_LOCKABLE -> "**distributelock** @Lockable, 2 SpEL fields, in-memory backend";
			case ZK_FLOOR -> "floor: raw client create ephemeral + delete";
			case ZK_FLOOR_TWO_KEYS -> "floor: raw client multi of 2 creates + multi of 2 deletes";
			case ZK_OURS_TRYLOCK -> "**distributelock** tryLock / releaseLock";
			case ZK_OURS_HANDLE -> "**distributelock** tryAcquire + close";
			case ZK_CURATOR -> "Curator InterProcessMutex";
			case ZK_CURATOR_PER_THREAD -> "Curator InterProcessMutex, a session per thread";
			case JDBC_FLOOR -> "floor: INSERT + DELETE";
			case JDBC_OURS_TRYLOCK -> "**distributelock** tryLock / releaseLock";
			case JDBC_OURS_HANDLE -> "**distributelock** tryAcquire + close";
			case JDBC_SI -> "Spring Integration JdbcLockRegistry";
			case JDBC_SHEDLOCK -> "ShedLock JdbcTemplateLockProvider";
			default -> EngineV1Libraries.is(name) ? EngineV1Libraries.label(name) : KindLibraries.label(name);
		};
	}

	/**
	 * Whether a library is the direct call that a {@code @Lockable} library is compared
	 * with.
	 */
	public static boolean isDirectCall(String name) {
		return name.equals(REDIS_OURS_HANDLE) || name.equals(MEMORY_OURS_HANDLE);
	}

	public static boolean isOurs(String name) {
		return name.contains("-ours-");
	}

	public static String store(String name) {
		return name.substring(0, name.indexOf('-'));
	}

	public static boolean isFloor(String name) {
		return name.endsWith("-floor");
	}

	/**
	 * What a library runs with, for the page.
	 * @param name the library's name
	 * @return its configuration
	 */
	public static LibraryConfiguration configuration(String name) {
		return switch (name) {
			case REDIS_FLOOR -> LettuceFloor.CONFIGURATION;
			case REDIS_OURS_TRYLOCK, ZK_OURS_TRYLOCK, JDBC_OURS_TRYLOCK -> OursLibrary.configuration(store(name), true);
			case REDIS_OURS_HANDLE, ZK_OURS_HANDLE, JDBC_OURS_HANDLE -> OursLibrary.configuration(store(name), false);
			case REDIS_OURS_LOCKABLE -> LockableLibrary.ON_REDIS;
			case MEMORY_OURS_HANDLE -> OursLibrary.configuration("memory", false);
			case MEMORY_OURS_LOCKABLE -> LockableLibrary.IN_MEMORY;
			case REDIS_REDISSON -> RedissonLibrary.CONFIGURATION;
			case REDIS_SI_SPIN -> SpringIntegrationRedisLibrary.configuration(RedisLockType.SPIN_LOCK);
			case REDIS_SI_PUBSUB -> SpringIntegrationRedisLibrary.configuration(RedisLockType.PUB_SUB_LOCK);
			case REDIS_LOCK4J -> Lock4jLibrary.CONFIGURATION;
			case ZK_FLOOR -> ZooKeeperFloor.CONFIGURATION;
			case ZK_FLOOR_TWO_KEYS -> ZooKeeperFloor.TWO_KEYS;
			case ZK_CURATOR -> CuratorLibrary.SHARED;
			case ZK_CURATOR_PER_THREAD -> CuratorLibrary.PER_THREAD;
			case JDBC_FLOOR -> JdbcFloor.CONFIGURATION;
			case JDBC_SI -> SpringIntegrationJdbcLibrary.CONFIGURATION;
			case JDBC_SHEDLOCK -> ShedLockLibrary.CONFIGURATION;
			default -> {
				LibraryConfiguration kind = EngineV1Libraries.is(name) ? EngineV1Libraries.configuration(name)
						: KindLibraries.configuration(name);
				if (kind == null) {
					throw new IllegalArgumentException("Unknown library '" + name + "'; known: " + known());
				}
				yield kind;
			}
		};
	}

	public static LockLibrary create(String name, Endpoints endpoints) throws Exception {
		return create(name, endpoints, UnaryOperator.identity());
	}

	/**
	 * Creates a library.
	 * @param name the library's name
	 * @param endpoints the servers
	 * @param dataSources wraps the connection pool of the JDBC libraries, to count their
	 * statements
	 * @return the library, connected
	 * @throws Exception if it cannot start
	 */
	public static LockLibrary create(String name, Endpoints endpoints, UnaryOperator<DataSource> dataSources)
			throws Exception {
		return switch (name) {
			case REDIS_FLOOR -> new LettuceFloor(endpoints);
			case REDIS_OURS_TRYLOCK -> oursOnRedis(endpoints, true);
			case REDIS_OURS_HANDLE -> oursOnRedis(endpoints, false);
			case REDIS_OURS_LOCKABLE -> new LockableLibrary(endpoints, null);
			case MEMORY_OURS_HANDLE ->
				new OursLibrary(new DefaultDistributeLock(new MemoryLockBackend()), false, () -> {
				});
			case MEMORY_OURS_LOCKABLE -> new LockableLibrary(endpoints, new MemoryLockBackend());
			case REDIS_REDISSON -> new RedissonLibrary(endpoints);
			case REDIS_SI_SPIN -> new SpringIntegrationRedisLibrary(endpoints, RedisLockType.SPIN_LOCK);
			case REDIS_SI_PUBSUB -> new SpringIntegrationRedisLibrary(endpoints, RedisLockType.PUB_SUB_LOCK);
			case REDIS_LOCK4J -> new Lock4jLibrary(endpoints);
			case ZK_FLOOR -> new ZooKeeperFloor(endpoints);
			case ZK_FLOOR_TWO_KEYS -> new ZooKeeperFloor(endpoints, true);
			case ZK_OURS_TRYLOCK -> oursOnZooKeeper(endpoints, true);
			case ZK_OURS_HANDLE -> oursOnZooKeeper(endpoints, false);
			case ZK_CURATOR -> new CuratorLibrary(endpoints, false);
			case ZK_CURATOR_PER_THREAD -> new CuratorLibrary(endpoints, true);
			case JDBC_FLOOR -> {
				HikariDataSource pool = StoreClients.pool(endpoints);
				yield new JdbcFloor(dataSources.apply(pool), pool);
			}
			case JDBC_OURS_TRYLOCK -> oursOnJdbc(endpoints, dataSources, true);
			case JDBC_OURS_HANDLE -> oursOnJdbc(endpoints, dataSources, false);
			case JDBC_SI -> {
				HikariDataSource pool = StoreClients.pool(endpoints);
				yield new SpringIntegrationJdbcLibrary(dataSources.apply(pool), pool);
			}
			case JDBC_SHEDLOCK -> {
				HikariDataSource pool = StoreClients.pool(endpoints);
				yield new ShedLockLibrary(dataSources.apply(pool), pool);
			}
			default -> {
				LockLibrary kind = EngineV1Libraries.is(name) ? EngineV1Libraries.create(name, endpoints, dataSources)
						: KindLibraries.create(name, endpoints);
				if (kind == null) {
					throw new IllegalArgumentException("Unknown library '" + name + "'; known: " + known());
				}
				yield kind;
			}
		};
	}

	private static OursLibrary oursOnRedis(Endpoints endpoints, boolean valueStyle) {
		LettuceConnectionFactory factory = StoreClients.redisConnectionFactory(endpoints);
		RedisLockBackend backend = new RedisLockBackend(factory);
		return new OursLibrary(new DefaultDistributeLock(backend), valueStyle, () -> {
			backend.close();
			factory.destroy();
		});
	}

	private static OursLibrary oursOnZooKeeper(Endpoints endpoints, boolean valueStyle) throws InterruptedException {
		CuratorFramework client = StoreClients.curator(endpoints);
		ZooKeeperLockBackend backend = new ZooKeeperLockBackend(client);
		return new OursLibrary(new DefaultDistributeLock(backend), valueStyle, () -> {
			backend.close();
			client.close();
		});
	}

	private static OursLibrary oursOnJdbc(Endpoints endpoints, UnaryOperator<DataSource> dataSources,
			boolean valueStyle) {
		HikariDataSource pool = StoreClients.pool(endpoints);
		JdbcLockBackend backend = new JdbcLockBackend(dataSources.apply(pool));
		return new OursLibrary(new DefaultDistributeLock(backend), valueStyle, pool);
	}

}
