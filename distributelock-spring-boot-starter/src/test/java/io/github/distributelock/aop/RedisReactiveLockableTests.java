package io.github.distributelock.aop;

import java.time.Duration;
import java.util.function.Predicate;

import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.autoconfigure.DistributeLockReactiveAutoConfiguration;

import io.github.distributelock.reactive.BlockHoundExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.distributelock.redis.EmbeddedRedisExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

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

	/**
	 * Spring Data opens the shared connection at its first use, with a blocking connect:
	 * with no startup probe to open it first, the first lock an application takes, on a
	 * Reactor thread, must not make that connect there (BlockHound fails it).
	 */
	@Test
	void theFirstLockOfTheApplicationTakenOnAReactorThreadDoesNotConnectThere() {
		contextRunner().withPropertyValues("distributelock.startup-check=none")
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class,
					DistributeLockReactiveAutoConfiguration.class))
			.withUserConfiguration(WorkConfiguration.class)
			.run((context) -> {
				Work work = context.getBean(Work.class);
				assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
					.isEqualTo("inner");
				assertThat(work.inner().subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
					.isEqualTo("inner");
			});
	}

	@Override
	protected Predicate<String> lockedInStore(AssertableApplicationContext context) {
		StringRedisTemplate store = context.getBean(StringRedisTemplate.class);
		return (key) -> Boolean.TRUE.equals(store.hasKey("lock:" + key));
	}

}
