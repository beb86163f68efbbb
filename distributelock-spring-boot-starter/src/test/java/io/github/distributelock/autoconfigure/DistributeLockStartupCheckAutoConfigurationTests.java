package io.github.distributelock.autoconfigure;

import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributeLockStartupCheckAutoConfiguration}; what the check does is
 * in {@link UnreachableStoreAtStartupTests}.
 */
class DistributeLockStartupCheckAutoConfigurationTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				DistributeLockAutoConfiguration.class, DistributeLockStartupCheckAutoConfiguration.class))
		.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.port(), "distributelock.startup-check=fail");

	@Test
	void checksTheStoreWithTheMonitorTheHealthIndicatorShares() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(LockStoreStartupCheck.class).hasSingleBean(LockStoreMonitor.class);
			// The check's probe went first: the store was found up before.
			assertThat(context.getBean(LockStoreMonitor.class).check().previous()).isEqualTo(LockStoreMonitor.State.UP);
		});
	}

	@Test
	void checksTheStoreEvenWhenBeansAreLazy() {
		this.contextRunner
			.withBean(LazyInitializationBeanFactoryPostProcessor.class, LazyInitializationBeanFactoryPostProcessor::new)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(LockStoreMonitor.class).check().previous())
					.isEqualTo(LockStoreMonitor.State.UP);
			});
	}

	@Test
	void withDistributeLockTurnedOffThereIsNoCheck() {
		this.contextRunner.withPropertyValues("distributelock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockStoreStartupCheck.class));
	}

	@Test
	void theCoreAloneChecksNothing() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redis.port(), "distributelock.startup-check=fail")
			.run((context) -> {
				assertThat(context).hasNotFailed().doesNotHaveBean(LockStoreStartupCheck.class);
				assertThat(context.getBean(LockStoreMonitor.class).check().previous())
					.isEqualTo(LockStoreMonitor.State.UNKNOWN);
			});
	}

}
