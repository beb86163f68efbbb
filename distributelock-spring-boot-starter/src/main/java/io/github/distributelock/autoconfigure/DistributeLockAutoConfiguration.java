package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.ShardedLockBackend;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.io.ResourceLoader;

/**
 * Auto-configuration of a {@link DistributeLock} over the store named by
 * {@code distributelock.type}, and of
 * {@link io.github.distributelock.Lockable @Lockable}. Health, the
 * {@code distributelocks} endpoint, observations and the check of the store at startup
 * are auto-configurations of their own, ordered after this one.
 *
 * @since 1.0.0
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
		"org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration",
		"org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration" })
@Conditional(OnDistributeLockEnabledCondition.class)
@EnableConfigurationProperties(DistributeLockProperties.class)
@Import({ RedisLockConfiguration.class, ZooKeeperLockConfiguration.class, JdbcLockConfiguration.class,
		UnavailableLockBackendConfiguration.class, LockableAdvisorConfiguration.class,
		LockLifecycleConfiguration.class })
@ImportRuntimeHints(DistributeLockRuntimeHints.class)
public final class DistributeLockAutoConfiguration {

	private static final Duration SHORTEST_WATCHDOG_LEASE = Duration.ofMillis(100);

	private static final Duration LONGEST_WATCHDOG_LEASE = DefaultDistributeLock.LONGEST_WATCHDOG_LEASE;

	@Bean
	@ConditionalOnMissingBean(DistributeLock.class)
	DefaultDistributeLock distributeLock(LockBackend backend, DistributeLockProperties properties,
			ObjectProvider<LockEventListener> eventListeners) {
		Duration watchdogLease = watchdogLease(properties.getWatchdogLease());
		DistributeLockConfigurationException unusedShards = unusedShards(backend, properties);
		if (unusedShards != null) {
			throw unusedShards;
		}
		return new DefaultDistributeLock(backend, watchdogLease, properties.isThrowOnLost(),
				LockEventListener.of(eventListeners.orderedStream().toList()), null);
	}

	/**
	 * The lease of locks the watchdog renews, refused when it is too short to be renewed
	 * in time: the watchdog renews every third of it, and a renewal takes a store round
	 * trip, a turn of the scheduler and whatever pause the JVM makes in between.
	 */
	static Duration watchdogLease(Duration lease) {
		if (lease.compareTo(LONGEST_WATCHDOG_LEASE) > 0) {
			long days = LONGEST_WATCHDOG_LEASE.toDays();
			throw new DistributeLockConfigurationException(
					"distributelock.watchdog-lease is " + lease
							+ ", longer than the lock service can count in nanoseconds (" + days + " days, about "
							+ days / 365 + " years).",
					"Set distributelock.watchdog-lease to at most " + days + "d (30s by default, which is also how "
							+ "long a crashed instance's locks stay held), or remove it.");
		}
		PositiveDuration.require("distributelock.watchdog-lease", lease,
				"a lock's lease in the store must last at least 1 ms", "30s");
		if (lease.compareTo(SHORTEST_WATCHDOG_LEASE) < 0) {
			throw new DistributeLockConfigurationException("distributelock.watchdog-lease is " + lease
					+ ", shorter than " + SHORTEST_WATCHDOG_LEASE.toMillis()
					+ " ms: the watchdog renews a lock every third of its lease, so a lease this short runs out "
					+ "during a store round trip or a garbage-collection pause, and locks are lost while held.",
					"Set distributelock.watchdog-lease to at least " + SHORTEST_WATCHDOG_LEASE.toMillis()
							+ "ms (30s by default, which is also how long a crashed instance's locks stay "
							+ "held), or remove it.");
		}
		return lease;
	}

	/**
	 * The failure to report when {@code distributelock.jdbc.shards} is set but the locks
	 * are not sharded by it, because another store is chosen or the application defines
	 * its own backend: whoever set it believes each key lives in one of those databases.
	 * @return the failure, or {@code null} if the shards are used or not set
	 */
	static @Nullable DistributeLockConfigurationException unusedShards(LockBackend backend,
			DistributeLockProperties properties) {
		List<String> shards = properties.getJdbc().getShards();
		if (shards.isEmpty() || backend instanceof ShardedLockBackend) {
			return null;
		}
		String type = properties.getType();
		LockType lockType = (type != null) ? LockType.of(type) : null;
		if (lockType != null && lockType != LockType.JDBC) {
			return new DistributeLockConfigurationException(
					"distributelock.jdbc.shards is set to " + shards + ", but distributelock.type is "
							+ lockType.propertyValue() + ", which does not use it: the locks are not sharded.",
					"Remove distributelock.jdbc.shards, or set distributelock.type=jdbc to keep the locks in the "
							+ "lock table of those DataSource beans.");
		}
		return new DistributeLockConfigurationException(
				"distributelock.jdbc.shards is set to " + shards + ", but the application defines its own LockBackend "
						+ "bean (" + backend.getClass().getName()
						+ "), which takes the place of the sharded backend: the locks are not sharded by it.",
				"Remove distributelock.jdbc.shards, or remove the application's LockBackend bean so that "
						+ "distributelock.type=jdbc builds the sharded backend (or define a ShardedJdbcLockBackend "
						+ "bean).");
	}

	// Shared by the health indicator and the check at startup, so that a change of the
	// store's state is reported once.
	@Bean
	@ConditionalOnMissingBean
	LockStoreMonitor distributeLockStoreMonitor(LockBackend backend, ListableBeanFactory beans,
			ResourceLoader resourceLoader) {
		return new LockStoreMonitor(backend,
				LockStoreAddress.of(backend.name(), beans, resourceLoader.getClassLoader()));
	}

}
