package io.github.distributelock.aop;

import java.util.function.Predicate;

import io.github.distributelock.reactive.BlockHoundExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.distributelock.redis.EmbeddedRedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Reactive and asynchronous {@code @Lockable} methods on Redis.
 * <p>
 * Runs with BlockHound installed ({@link BlockHoundExtension}): a blocking call on a
 * Reactor or Netty thread, in the starter or the store's client, fails the test.
 */
@Tag("blockhound")
@ExtendWith(BlockHoundExtension.class)
class RedisReactiveLockableTests extends AbstractReactiveLockableTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Override
	protected ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"distributelock.type=redis");
	}

	@Override
	protected Predicate<String> lockedInStore(AssertableApplicationContext context) {
		StringRedisTemplate store = context.getBean(StringRedisTemplate.class);
		return (key) -> Boolean.TRUE.equals(store.hasKey("lock:" + key));
	}

}
