package io.github.distributelock.autoconfigure;

import java.time.Duration;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.RedisLockBackend;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis backend, on the application's {@link RedisConnectionFactory}.
 *
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ RedisConnectionFactory.class, io.lettuce.core.RedisClient.class })
@ConditionalOnProperty(name = "distributelock.type", havingValue = "redis")
class RedisLockConfiguration {

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
		RedisLockBackendSettings settings = new RedisLockBackendSettings(properties.getRedis());
		customizers.orderedStream().forEach((customizer) -> customizer.customize(settings));
		Duration fenceIdleTimeout = settings.getFenceIdleTimeout();
		if (fenceIdleTimeout.toMillis() < 1) {
			throw new DistributeLockConfigurationException(
					"distributelock.redis.fence-idle-timeout is " + fenceIdleTimeout
							+ ": the fencing counter of a key would expire as soon as it is written.",
					"Set distributelock.redis.fence-idle-timeout to a positive duration (1m by default), or remove it.");
		}
		Duration replicaAckTimeout = settings.getReplicaAckTimeout();
		if (settings.getMinReplicasToAck() > 0 && replicaAckTimeout.toMillis() < 1) {
			throw new DistributeLockConfigurationException(
					"distributelock.redis.replica-ack-timeout is " + replicaAckTimeout
							+ ": with min-replicas-to-ack, a WAIT without a timeout would block for ever when the "
							+ "replicas do not answer.",
					"Set distributelock.redis.replica-ack-timeout to a positive duration, or remove it for its "
							+ "default.");
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

}
