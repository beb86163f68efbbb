package io.github.distributelock.autoconfigure;

import java.util.Set;
import java.util.stream.Collectors;

import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A clean shutdown on a real redis-server, whose connection factory stops in lifecycle
 * phase 0, long before beans are destroyed.
 */
class RedisShutdownTests extends AbstractShutdownTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Override
	protected String backendName() {
		return "redis";
	}

	@Override
	protected ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redis.port());
	}

	@Override
	protected Class<?> countingBackendConfiguration() {
		return CountingBackendConfiguration.class;
	}

	@Override
	protected Class<?> storeClientType() {
		return RedisConnectionFactory.class;
	}

	@Override
	protected DefaultDistributeLock otherInstance() {
		LettuceConnectionFactory connection = redis.newConnectionFactory();
		closeAfterTest(connection::destroy);
		RedisLockBackend backend = closeAfterTest(new RedisLockBackend(connection));
		return closeAfterTest(new DefaultDistributeLock(backend));
	}

	/** The lock keys in Redis; the fencing counters, which expire when idle, are not. */
	@Override
	protected Set<String> heldKeysInStore() {
		return redis.store()
			.keys("lock:*")
			.stream()
			.map((key) -> key.substring("lock:".length()))
			.collect(Collectors.toSet());
	}

	/** The woken waiters ended before the Redis client stopped under them. */
	@Override
	protected void assertNoUseOfAClosedClient(CapturedOutput output) {
		assertThat(output).doesNotContain("Connection failure occurred").doesNotContain("aborted with exception");
	}

	@Configuration(proxyBeanMethods = false)
	static class CountingBackendConfiguration {

		@Bean
		CountingLockBackend countingLockBackend(ObjectProvider<RedisConnectionFactory> connectionFactory) {
			return CountingLockBackend.of(new RedisLockBackend(connectionFactory.getObject()));
		}

	}

}
