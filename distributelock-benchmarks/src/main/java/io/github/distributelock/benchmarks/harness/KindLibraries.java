package io.github.distributelock.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.library.StoreClients;
import io.github.distributelock.benchmarks.ours.OursKindLibrary;
import io.github.distributelock.benchmarks.ours.OursKindLibrary.Kind;
import io.github.distributelock.benchmarks.ours.ReactiveLibrary;
import io.github.distributelock.benchmarks.peer.CuratorKindLibrary;
import io.github.distributelock.benchmarks.peer.RedissonKindLibrary;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The libraries of the "Lock kinds" and "Reactive and non-blocking" rows, beside
 * {@link Libraries}: named {@code <store>-ours-<kind>}, {@code redis-redisson-<kind>},
 * {@code zookeeper-curator-<kind>} and {@code redis-ours-reactive}. Curator's fair lock
 * is its {@code InterProcessMutex}, {@link Libraries#ZK_CURATOR}.
 */
public final class KindLibraries {

	public static final String REDIS_OURS_REACTIVE = "redis-ours-reactive";

	public static final String REDIS_OURS_REACTIVE_ACQUIRE = "redis-ours-reactive-acquire";

	private static final String OURS = "-ours-";

	private static final String REDISSON = "redis-redisson-";

	private static final String CURATOR = "zookeeper-curator-";

	private KindLibraries() {
	}

	/** Our library of a kind on a store, {@code redis} or {@code zookeeper}. */
	public static String ours(String store, Kind kind) {
		return store + OURS + suffix(kind);
	}

	/** The peer's library of a kind on a store. */
	public static String peer(String store, Kind kind) {
		if (store.equals("redis")) {
			return REDISSON + suffix(kind);
		}
		return (kind == Kind.FAIR) ? Libraries.ZK_CURATOR : CURATOR + suffix(kind);
	}

	/** Our exclusive lock on a store: what each kind's cost is compared with. */
	public static String exclusive(String store) {
		return store.equals("redis") ? Libraries.REDIS_OURS_HANDLE : Libraries.ZK_OURS_HANDLE;
	}

	/** The peer's exclusive lock on a store. */
	public static String peerExclusive(String store) {
		return store.equals("redis") ? Libraries.REDIS_REDISSON : Libraries.ZK_CURATOR;
	}

	static String suffix(Kind kind) {
		return kind.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The libraries of the uncontended kind rows: per store, exclusive, each kind, then
	 * the peer's.
	 */
	public static List<String> uncontendedKinds() {
		List<String> names = new ArrayList<>();
		for (String store : List.of("redis", "zookeeper")) {
			if (store.equals("zookeeper")) {
				// What the store itself costs for two keys in one transaction.
				names.add(Libraries.ZK_FLOOR);
				names.add(Libraries.ZK_FLOOR_TWO_KEYS);
			}
			names.add(exclusive(store));
			for (Kind kind : Kind.values()) {
				names.add(ours(store, kind));
			}
			names.add(peerExclusive(store));
			for (Kind kind : Kind.values()) {
				if (!peer(store, kind).equals(peerExclusive(store))) {
					names.add(peer(store, kind));
				}
			}
		}
		return names;
	}

	/** The libraries of the contended fair-lock rows. */
	public static List<String> contendedKinds() {
		return List.of(ours("redis", Kind.FAIR), peer("redis", Kind.FAIR), ours("zookeeper", Kind.FAIR),
				peer("zookeeper", Kind.FAIR));
	}

	/**
	 * The libraries of the reactive rows, on Redis: the blocking path, and the reactive
	 * one with {@code withLockMono} and with {@code tryAcquire}.
	 */
	public static List<String> reactive() {
		return List.of(Libraries.REDIS_OURS_HANDLE, REDIS_OURS_REACTIVE, REDIS_OURS_REACTIVE_ACQUIRE);
	}

	/** Every library of this class. */
	public static List<String> all() {
		List<String> names = new ArrayList<>();
		for (String name : uncontendedKinds()) {
			if (!Libraries.all().contains(name)) {
				names.add(name);
			}
		}
		names.add(REDIS_OURS_REACTIVE);
		names.add(REDIS_OURS_REACTIVE_ACQUIRE);
		return names;
	}

	static @Nullable Kind kind(String name) {
		for (Kind kind : Kind.values()) {
			if (name.endsWith("-" + suffix(kind))) {
				return kind;
			}
		}
		return null;
	}

	static String label(String name) {
		if (name.equals(REDIS_OURS_REACTIVE)) {
			return "**distributelock** ReactiveDistributeLock withLockMono";
		}
		if (name.equals(REDIS_OURS_REACTIVE_ACQUIRE)) {
			return "**distributelock** ReactiveDistributeLock tryAcquire + releaseAsync";
		}
		Kind kind = kind(name);
		if (kind == null) {
			return name;
		}
		if (name.contains(OURS)) {
			return "**distributelock** " + describe(kind);
		}
		return switch (kind) {
			case FAIR -> "Redisson RFairLock";
			case WRITE -> name.startsWith(REDISSON) ? "Redisson RReadWriteLock write lock"
					: "Curator InterProcessReadWriteLock write lock";
			case READ -> name.startsWith(REDISSON) ? "Redisson RReadWriteLock read lock"
					: "Curator InterProcessReadWriteLock read lock";
			case PERMITS -> name.startsWith(REDISSON) ? "Redisson RPermitExpirableSemaphore, 3 permits"
					: "Curator InterProcessSemaphoreV2, 3 leases";
			case MULTI -> name.startsWith(REDISSON) ? "Redisson RedissonMultiLock, 2 keys"
					: "Curator InterProcessMultiLock, 2 paths";
		};
	}

	/** How the page names a kind. */
	public static String describe(Kind kind) {
		return switch (kind) {
			case FAIR -> "fair lock";
			case WRITE -> "write lock";
			case READ -> "read lock";
			case PERMITS -> "permits (3)";
			case MULTI -> "multi-key (2 keys)";
		};
	}

	static @Nullable LibraryConfiguration configuration(String name) {
		if (name.equals(REDIS_OURS_REACTIVE)) {
			return ReactiveLibrary.CONFIGURATION;
		}
		if (name.equals(REDIS_OURS_REACTIVE_ACQUIRE)) {
			return ReactiveLibrary.ACQUIRE_ONLY;
		}
		Kind kind = kind(name);
		if (kind == null) {
			return null;
		}
		if (name.contains(OURS)) {
			return OursKindLibrary.configuration(Libraries.store(name), kind);
		}
		return name.startsWith(REDISSON) ? RedissonKindLibrary.configuration(kind)
				: CuratorKindLibrary.configuration(kind);
	}

	static @Nullable LockLibrary create(String name, Endpoints endpoints) throws Exception {
		if (name.equals(REDIS_OURS_REACTIVE) || name.equals(REDIS_OURS_REACTIVE_ACQUIRE)) {
			LettuceConnectionFactory factory = StoreClients.redisConnectionFactory(endpoints);
			RedisLockBackend backend = new RedisLockBackend(factory);
			return new ReactiveLibrary(new DefaultDistributeLock(backend), name.equals(REDIS_OURS_REACTIVE), () -> {
				backend.close();
				factory.destroy();
			});
		}
		Kind kind = kind(name);
		if (kind == null || !all().contains(name)) {
			return null;
		}
		if (name.startsWith("redis" + OURS)) {
			LettuceConnectionFactory factory = StoreClients.redisConnectionFactory(endpoints);
			RedisLockBackend backend = new RedisLockBackend(factory);
			return new OursKindLibrary(new DefaultDistributeLock(backend), kind, () -> {
				backend.close();
				factory.destroy();
			});
		}
		if (name.startsWith("zookeeper" + OURS)) {
			CuratorFramework client = StoreClients.curator(endpoints);
			ZooKeeperLockBackend backend = new ZooKeeperLockBackend(client);
			return new OursKindLibrary(new DefaultDistributeLock(backend), kind, () -> {
				backend.close();
				client.close();
			});
		}
		return name.startsWith(REDISSON) ? new RedissonKindLibrary(endpoints, kind)
				: new CuratorKindLibrary(endpoints, kind);
	}

}
