package io.github.distributelock.autoconfigure;

import java.time.Duration;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.RedisLockBackend;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis backend, on the application's {@link RedisConnectionFactory}.
 *
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ RedisConnectionFactory.class, io.lettuce.core.RedisClient.class })
@ConditionalOnProperty(name = "distributelock.type", havingValue = "redis")
class RedisLockConfiguration {

	/**
	 * The longest idle timeout of a fencing counter: Redis refuses an expiry that, added
	 * to the time in milliseconds since 1970, does not fit in 64 bits, and a timeout
	 * whose own milliseconds did not fit failed the start with a bare "long overflow". A
	 * round bound below that limit, far beyond any timeout that means something.
	 */
	static final Duration LONGEST_FENCE_IDLE_TIMEOUT = Duration.ofDays(100_000_000_000L);

	@Bean
	@ConditionalOnMissingBean(LockBackend.class)
	RedisLockBackend redisLockBackend(ObjectProvider<RedisConnectionFactory> connectionFactory,
			DistributeLockProperties properties, ObjectProvider<RedisLockBackendCustomizer> customizers) {
		RedisConnectionFactory factory = connectionFactory.getIfAvailable();
		if (factory == null) {
			throw new DistributeLockConfigurationException(
					"distributelock.type=redis needs a RedisConnectionFactory bean, and the application has none.",
					"Add org.springframework.boot:spring-boot-starter-data-redis, which configures one from "
							+ "the spring.data.redis.* properties, or define a RedisConnectionFactory bean.");
		}
		if (!(factory instanceof LettuceConnectionFactory)) {
			// Checked here: the backend's own refusal would reach the catch below, which
			// blames min-replicas-to-ack for it.
			throw new DistributeLockConfigurationException(
					"distributelock.type=redis needs a Lettuce connection factory, and the application's "
							+ "RedisConnectionFactory is a " + factory.getClass().getName() + ".",
					"Let Spring Boot build its LettuceConnectionFactory from the spring.data.redis.* properties "
							+ "(spring.data.redis.client-type=lettuce, the default of "
							+ "spring-boot-starter-data-redis), define a LettuceConnectionFactory bean, or define a "
							+ "LockBackend bean that keeps the locks elsewhere.");
		}
		RedisLockBackendSettings settings = new RedisLockBackendSettings(properties.getRedis());
		customizers.orderedStream().forEach((customizer) -> customizer.customize(settings));
		return CustomizedSettings.explainingChanges(RedisLockBackendCustomizer.class.getSimpleName(),
				settings.changedByCustomizers(),
				() -> checkedBackend((LettuceConnectionFactory) factory, settings, properties.getWatchdogLease()));
	}

	/**
	 * Pauses the Redis backend's release subscriptions between the lock service's stop,
	 * which ends every wait, and the connection factory's.
	 */
	@Bean
	static RedisReleaseSubscriptionsLifecycle redisReleaseSubscriptionsLifecycle(
			ObjectProvider<RedisLockBackend> backend) {
		return new RedisReleaseSubscriptionsLifecycle(backend);
	}

	private static RedisLockBackend checkedBackend(LettuceConnectionFactory factory, RedisLockBackendSettings settings,
			@Nullable Duration watchdogLease) {
		if (settings.getKeyPrefix() == null) {
			throw new DistributeLockConfigurationException(
					"distributelock.redis.key-prefix is null: every lock key in "
							+ "Redis would start with the text \"null\".",
					"Set distributelock.redis.key-prefix (lock: by default, or empty for no prefix), or remove it.");
		}
		if (settings.getMinReplicasToAck() < 0) {
			throw new DistributeLockConfigurationException(
					"distributelock.redis.min-replicas-to-ack is " + settings.getMinReplicasToAck() + ", below 0.",
					"Set distributelock.redis.min-replicas-to-ack to 0 (not to wait for replicas, the default) or to "
							+ "how many replicas must acknowledge each lock.");
		}
		PositiveDuration.require("distributelock.redis.fence-idle-timeout", settings.getFenceIdleTimeout(),
				"the fencing counter of a key would expire as soon as it is written", "1m");
		if (settings.getFenceIdleTimeout().compareTo(LONGEST_FENCE_IDLE_TIMEOUT) > 0) {
			long days = LONGEST_FENCE_IDLE_TIMEOUT.toDays();
			throw new DistributeLockConfigurationException("distributelock.redis.fence-idle-timeout is "
					+ settings.getFenceIdleTimeout() + ", longer than Redis can keep a key (" + days
					+ " days, about 273 million years): it counts expiry times in milliseconds since 1970, in 64 bits.",
					"Set distributelock.redis.fence-idle-timeout to at most " + days
							+ "d (1m by default), or remove it.");
		}
		// Null only from a customizer; the backend takes it even when it does not wait.
		if (settings.getMinReplicasToAck() > 0 || settings.getReplicaAckTimeout() == null) {
			PositiveDuration.require("distributelock.redis.replica-ack-timeout", settings.getReplicaAckTimeout(),
					"with min-replicas-to-ack, a WAIT without a timeout would block for ever when the replicas do "
							+ "not answer",
					null);
			long commandTimeout = factory.getTimeout();
			if (settings.getReplicaAckTimeout().toMillis() >= commandTimeout) {
				throw new DistributeLockConfigurationException("distributelock.redis.replica-ack-timeout is "
						+ settings.getReplicaAckTimeout().toMillis() + " ms, not below the Redis command timeout of "
						+ commandTimeout + " ms (spring.data.redis.timeout): the client would give up on the WAIT "
						+ "for the replicas before Redis answers it, and a lock that too few replicas acknowledge "
						+ "would fail with a command timeout instead of the message that names the replicas.",
						"Set distributelock.redis.replica-ack-timeout below spring.data.redis.timeout (such as 1s, "
								+ "the default), or raise spring.data.redis.timeout.");
			}
			// A lease that is not positive has a failure of its own, which names it.
			if (settings.getMinReplicasToAck() > 0 && watchdogLease != null && !watchdogLease.isNegative()
					&& !watchdogLease.isZero() && settings.getReplicaAckTimeout().compareTo(watchdogLease) >= 0) {
				throw new DistributeLockConfigurationException(
						"distributelock.redis.replica-ack-timeout is " + settings.getReplicaAckTimeout().toMillis()
								+ " ms, not below distributelock.watchdog-lease (" + watchdogLease.toMillis()
								+ " ms): an acquisition waits that long for the replicas after it "
								+ "took the lock, so a lock could run out before its caller is told it holds it, and a "
								+ "renewal that waits as long lets the lease run out.",
						"Set distributelock.redis.replica-ack-timeout well below distributelock.watchdog-lease (the "
								+ "watchdog renews every third of it), or lengthen distributelock.watchdog-lease (30s "
								+ "by default).");
			}
		}
		try {
			return new RedisLockBackend(factory, settings.getKeyPrefix(), settings.getFenceIdleTimeout(),
					settings.getMinReplicasToAck(), settings.getReplicaAckTimeout());
		}
		catch (IllegalArgumentException ex) {
			throw new DistributeLockConfigurationException(
					"distributelock.redis.min-replicas-to-ack=" + settings.getMinReplicasToAck()
							+ " cannot be used here: " + ex.getMessage() + ".",
					"Set distributelock.redis.min-replicas-to-ack to 0, or give it a Lettuce connection factory "
							+ "(spring.data.redis.host, spring.data.redis.sentinel.* or spring.data.redis.cluster.*) "
							+ "and a positive distributelock.redis.replica-ack-timeout.");
		}
	}

	/**
	 * Stops in the phase between the lock service's ({@code 1024}) and the connection
	 * factory's ({@code 0}), so that no release subscription is attempted on a factory
	 * about to stop. It finds only a backend that is the {@link RedisLockBackend} bean
	 * itself, not one wrapped in another {@code LockBackend} bean; a subscription the
	 * factory's stop reaches fails quietly either way.
	 */
	static final class RedisReleaseSubscriptionsLifecycle implements SmartLifecycle {

		static final int PHASE = LockLifecycleConfiguration.DistributeLockLifecycle.PHASE / 2;

		private final ObjectProvider<RedisLockBackend> backend;

		private volatile boolean running;

		RedisReleaseSubscriptionsLifecycle(ObjectProvider<RedisLockBackend> backend) {
			this.backend = backend;
		}

		@Override
		public void start() {
			this.running = true;
			this.backend.ifAvailable(RedisLockBackend::resumeReleaseSubscriptions);
		}

		@Override
		public void stop() {
			this.running = false;
			this.backend.ifAvailable(RedisLockBackend::pauseReleaseSubscriptions);
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

		@Override
		public int getPhase() {
			return PHASE;
		}

	}

}
