package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.LogLines;
import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link DistributeLockStartupCheckAutoConfiguration}; what the check does is
 * in {@link UnreachableStoreAtStartupTests}.
 */
@ExtendWith(OutputCaptureExtension.class)
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

	/**
	 * A child context (a management server's, a client factory's) that closes while the
	 * check waits for the store publishes its closing to this context's listeners too: it
	 * is not this context closing, and the warning about this context's store still
	 * comes.
	 */
	@Test
	void aChildContextClosingLeavesTheWarningAboutTheStoreDownAtStartup(CapturedOutput output) {
		SlowStoreDown backend = new SlowStoreDown();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class,
					DistributeLockStartupCheckAutoConfiguration.class))
			.withBean(LockBackend.class, () -> backend)
			.withPropertyValues("distributelock.startup-check=warn")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(backend.probing.await(10, TimeUnit.SECONDS)).as("the check probes the store").isTrue();
				try (AnnotationConfigApplicationContext child = new AnnotationConfigApplicationContext()) {
					child.setParent(context);
					child.refresh();
				}
				backend.answer.countDown();
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(
							() -> assertThat(LogLines.containing(output, "Lock store redis is unavailable at startup"))
								.hasSize(1));
			});
	}

	/** A store down, whose probe answers only when the test lets it. */
	static class SlowStoreDown extends TroubleshootingPageTests.StubBackend {

		final CountDownLatch probing = new CountDownLatch(1);

		final CountDownLatch answer = new CountDownLatch(1);

		SlowStoreDown() {
			this.down = true;
		}

		@Override
		public void probe() {
			this.probing.countDown();
			try {
				this.answer.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			super.probe();
		}

	}

}
