package io.github.distributelock.sample.webflux.redis;

import org.springframework.boot.autoconfigure.AbstractDependsOnBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Starts an {@link EmbeddedRedisServer} on the standalone Redis address of
 * {@code spring.data.redis.*} before any {@link RedisConnectionFactory} is created, and
 * stops it after they are closed. {@code sample.embedded-redis.enabled=false} turns it
 * off.
 *
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty(name = "sample.embedded-redis.enabled", matchIfMissing = true)
class EmbeddedRedisConfiguration {

	@Bean
	EmbeddedRedisServer embeddedRedisServer(DataRedisConnectionDetails connectionDetails) {
		DataRedisConnectionDetails.Standalone standalone = connectionDetails.getStandalone();
		if (connectionDetails.getSentinel() != null || connectionDetails.getCluster() != null
				|| connectionDetails.getMasterReplica() != null || standalone == null) {
			return EmbeddedRedisServer.notStarted("Redis is not a standalone server");
		}
		return EmbeddedRedisServer.startIfAbsent(standalone.getHost(), standalone.getPort());
	}

	@Bean
	static RedisConnectionFactoryDependsOnEmbeddedRedis redisConnectionFactoryDependsOnEmbeddedRedis() {
		return new RedisConnectionFactoryDependsOnEmbeddedRedis();
	}

	/**
	 * Makes every {@link RedisConnectionFactory} depend on the embedded server, so it is
	 * created after the server starts and destroyed before the server stops.
	 */
	static class RedisConnectionFactoryDependsOnEmbeddedRedis extends AbstractDependsOnBeanFactoryPostProcessor {

		RedisConnectionFactoryDependsOnEmbeddedRedis() {
			super(RedisConnectionFactory.class, EmbeddedRedisServer.class);
		}

	}

}
