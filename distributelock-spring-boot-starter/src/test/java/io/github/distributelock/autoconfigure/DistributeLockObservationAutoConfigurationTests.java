package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.Lockable;
import io.github.distributelock.actuate.DefaultLockAcquisitionObservationConvention;
import io.github.distributelock.actuate.LockAcquisitionObservationConvention;
import io.github.distributelock.actuate.ObservationLockEventListener;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockTracker;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributeLockObservationAutoConfiguration}: acquisitions and holds
 * observed with Micrometer, on a real redis-server.
 */
class DistributeLockObservationAutoConfigurationTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class,
				DistributeLockObservationAutoConfiguration.class))
		.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.port());

	@Test
	void lockableLocksAreTimedUnderTheAnnotationsKey() {
		this.contextRunner.withUserConfiguration(OrderServiceConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(ObservationLockEventListener.class);
			context.getBean(OrderService.class).create(42, "abc");
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("distributelock.acquire")
				.tags("backend", "redis", "lock.name", "order.addOder", "result", "acquired")
				.timer()
				.count()).isEqualTo(1);
			assertThat(meters.get("distributelock.hold")
				.tags("lock.name", "order.addOder", "outcome", "released")
				.timer()
				.count()).isEqualTo(1);
		});
	}

	@Test
	void applicationsOwnListenerIsToldAlongsideTheObservations() {
		this.contextRunner.withUserConfiguration(CountingListenerConfiguration.class).run((context) -> {
			context.getBean(DistributeLock.class).tryAcquire("counted", Duration.ZERO, null).orElseThrow().close();
			assertThat(context.getBean(CountingListenerConfiguration.class).acquired).hasValue(1);
			assertThat(context.getBean(MeterRegistry.class).get("distributelock.acquire").timer().count()).isEqualTo(1);
		});
	}

	@Test
	void applicationsConventionNamesTheObservations() {
		this.contextRunner.withUserConfiguration(RenamingConventionConfiguration.class).run((context) -> {
			context.getBean(DistributeLock.class).tryAcquire("renamed", Duration.ZERO, null).orElseThrow().close();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("app.lock.acquire").tags("result", "acquired").timer().count()).isEqualTo(1);
			assertThat(meters.find("distributelock.acquire").timer()).isNull();
		});
	}

	@Test
	void withoutMicrometerNothingIsObserved() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("io.micrometer")).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(ObservationLockEventListener.class);
			try (LockHandle handle = context.getBean(DistributeLock.class)
				.tryAcquire("unobserved", Duration.ZERO, null)
				.orElseThrow()) {
				assertThat(handle.isHeld()).isTrue();
			}
		});
	}

	@Test
	void withoutAnObservationRegistryNothingIsObserved() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DistributeLockAutoConfiguration.class, DistributeLockObservationAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redis.port())
			.run((context) -> {
				assertThat(context).doesNotHaveBean(ObservationRegistry.class)
					.doesNotHaveBean(ObservationLockEventListener.class);
				context.getBean(DistributeLock.class)
					.tryAcquire("no-registry", Duration.ZERO, null)
					.orElseThrow()
					.close();
			});
	}

	@Test
	void withDistributeLockTurnedOffNothingIsObserved() {
		this.contextRunner.withPropertyValues("distributelock.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(ObservationRegistry.class)
				.doesNotHaveBean(ObservationLockEventListener.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class CountingListenerConfiguration {

		final AtomicInteger acquired = new AtomicInteger();

		@Bean
		LockEventListener countingListener() {
			return (key, name, backend) -> new LockTracker() {

				@Override
				public void acquired(long fencingToken) {
					CountingListenerConfiguration.this.acquired.incrementAndGet();
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RenamingConventionConfiguration {

		@Bean
		LockAcquisitionObservationConvention renamingConvention() {
			return new DefaultLockAcquisitionObservationConvention() {

				@Override
				public String getName() {
					return "app.lock.acquire";
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OrderServiceConfiguration {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

	}

	static class OrderService {

		@Lockable(key = "order.addOder", fields = { "productId", "token" })
		void create(long productId, String token) {
		}

	}

}
