package io.github.distributelock.autoconfigure;

import java.security.Principal;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LogLines;
import io.github.distributelock.Lockable;
import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.actuate.DistributeLocksEndpoint;
import io.github.distributelock.actuate.DistributeLocksEndpoint.HeldLockDescriptor;
import io.github.distributelock.actuate.DistributeLocksEndpointWebExtension;
import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.actuate.ObservationLockEventListener;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockTracker;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Observations, the health indicator and the {@code distributelocks} endpoint are
 * configured when their libraries are present, and nothing changes when they are not.
 */
@ExtendWith(OutputCaptureExtension.class)
class DistributeLockActuatorAutoConfigurationTests {

	/** A frame of every stack trace of a failed probe. */
	private static final String PROBE_FRAME = "at " + LockStoreMonitor.class.getName() + ".check(";

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
				DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
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
	void withoutAnObservationRegistryTheListenerObservesNothing() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redis.port())
			.run((context) -> {
				assertThat(context).doesNotHaveBean(ObservationRegistry.class);
				context.getBean(DistributeLock.class)
					.tryAcquire("no-registry", Duration.ZERO, null)
					.orElseThrow()
					.close();
			});
	}

	@Test
	void healthIsUpWithTheBackendAndTheRoundTripTime() {
		this.contextRunner.run((context) -> {
			Health health = context.getBean("distributeLockHealthIndicator", DistributeLockHealthIndicator.class)
				.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("backend", "redis").containsKey("roundTripMs");
			assertThat((Double) health.getDetails().get("roundTripMs")).isPositive();
		});
	}

	@Test
	void healthIsDownWhenTheStoreIsGone() throws Exception {
		EmbeddedRedis stopped = EmbeddedRedis.start();
		int port = stopped.port();
		stopped.close();
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=" + port, "spring.data.redis.connect-timeout=2s",
					"spring.data.redis.timeout=2s")
			.run((context) -> {
				Health health = context.getBean(DistributeLockHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsEntry("backend", "redis").containsKey("error");
			});
	}

	@Test
	void healthLogsOnceWhenTheStoreGoesDownAndOnceWhenItIsBack(CapturedOutput output) throws Exception {
		try (EmbeddedRedis store = EmbeddedRedis.start()) {
			this.contextRunner
				.withPropertyValues("spring.data.redis.port=" + store.port(), "spring.data.redis.connect-timeout=500ms",
						"spring.data.redis.timeout=500ms", "distributelock.startup-check=none")
				.run((context) -> {
					DistributeLockHealthIndicator indicator = context.getBean(DistributeLockHealthIndicator.class);
					String storeName = "Lock store redis at 127.0.0.1:" + store.port() + " ";
					assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
					store.stop();
					for (int probe = 0; probe < 3; probe++) {
						assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
					}
					assertThat(LogLines.containing(output, "Lock store ")).singleElement()
						.asString()
						.contains("WARN", storeName + "is unavailable: ",
								"Lock calls fail with DistributeLockException until it answers.");
					LogLines.assertNoStackTraceAfter(output, "Lock store ");
					store.restart();
					await().atMost(Duration.ofSeconds(20))
						.until(() -> indicator.health().getStatus(), Status.UP::equals);
					assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
					assertThat(LogLines.containing(output, "Lock store ")).hasSize(2)
						.last()
						.asString()
						.contains("INFO", storeName + "is available again.");
					assertThat(output.getAll()).doesNotContain(PROBE_FRAME);
				});
		}
	}

	@Test
	void theStackTraceOfAFailedProbeIsLoggedAtDebug(CapturedOutput output) throws Exception {
		LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
		EmbeddedRedis stopped = EmbeddedRedis.start();
		stopped.close();
		this.contextRunner
			.withPropertyValues("spring.data.redis.port=" + stopped.port(), "distributelock.startup-check=none")
			.run((context) -> {
				logging.setLogLevel(LockStoreMonitor.class.getName(), LogLevel.DEBUG);
				try {
					context.getBean(DistributeLockHealthIndicator.class).health();
					context.getBean(DistributeLockHealthIndicator.class).health();
				}
				finally {
					logging.setLogLevel(LockStoreMonitor.class.getName(), null);
				}
				assertThat(LogLines.containing(output, "failed its probe")).hasSize(2)
					.allSatisfy((line) -> assertThat(line).contains("DEBUG",
							"Lock store redis at 127.0.0.1:" + stopped.port() + " failed its probe"));
				assertThat(LogLines.containing(output, PROBE_FRAME)).hasSize(2);
			});
	}

	@Test
	void healthIndicatorCanBeTurnedOff() {
		this.contextRunner.withPropertyValues("management.health.distributelock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DistributeLockHealthIndicator.class));
	}

	@Test
	void withoutSpringBootHealthThereIsNoHealthIndicator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DistributeLockHealthIndicator.class)
				.hasSingleBean(DistributeLock.class));
	}

	@Test
	void endpointListsTheLocksThisInstanceHolds() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=distributelocks")
			.run((context) -> {
				DistributeLock lock = context.getBean(DistributeLock.class);
				DistributeLocksEndpoint endpoint = context.getBean(DistributeLocksEndpoint.class);
				try (LockHandle handle = lock.tryAcquire("account:1", Duration.ZERO, null).orElseThrow()) {
					assertThat(lock.tryLock("report", "owner-value", 0, 60_000)).isTrue();
					assertThat(endpoint.heldLocks().locks()).hasSize(2);
					HeldLockDescriptor account = endpoint.heldLocks().locks().get(0);
					assertThat(account.key()).isEqualTo("account:1");
					assertThat(account.backend()).isEqualTo("redis");
					assertThat(account.fencingToken()).isEqualTo(handle.fencingToken());
					assertThat(account.thread()).isEqualTo(Thread.currentThread().getName());
					assertThat(account.leaseMs()).isEqualTo(30_000);
					assertThat(account.renewed()).isTrue();
					assertThat(account.leaseExpiresAt()).isAfter(account.since());
					assertThat(account.since()).isNotNull();
					assertThat(account.owner()).isEqualTo("******");
					HeldLockDescriptor report = endpoint.heldLocks().locks().get(1);
					assertThat(report.owner()).isEqualTo("******");
					assertThat(report.leaseMs()).isEqualTo(60_000);
					assertThat(report.renewed()).isFalse();
					assertThat(report.leaseExpiresAt()).isBetween(report.since().plusSeconds(59),
							report.since().plusSeconds(61));
					assertThat(report.thread()).isNull();
					assertThat(lock.releaseLock("report", "owner-value")).isTrue();
				}
				assertThat(endpoint.heldLocks().locks()).isEmpty();
			});
	}

	@ParameterizedTest
	@CsvSource({ "never, ******", "when-authorized, owner-value", "always, owner-value" })
	void endpointShowsOwnersOutsideTheWebAsShowValuesSays(String showValues, String shownOwner) {
		// Outside the web (JMX), Spring Boot counts every caller as authorized.
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=distributelocks",
					"management.endpoint.distributelocks.show-values=" + showValues)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(DistributeLocksEndpointWebExtension.class);
				DistributeLock lock = context.getBean(DistributeLock.class);
				assertThat(lock.tryLock("report", "owner-value", 0, 60_000)).isTrue();
				assertThat(context.getBean(DistributeLocksEndpoint.class).heldLocks().locks()).singleElement()
					.satisfies((report) -> assertThat(report.owner()).isEqualTo(shownOwner));
				assertThat(lock.releaseLock("report", "owner-value")).isTrue();
			});
	}

	@Test
	void webExtensionShowsOwnersOnlyToUsersInTheRoles() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=distributelocks",
					"management.endpoint.distributelocks.show-values=when-authorized",
					"management.endpoint.distributelocks.roles=OPS,ADMIN")
			.run((context) -> {
				DistributeLocksEndpointWebExtension web = context.getBean(DistributeLocksEndpointWebExtension.class);
				DistributeLock lock = context.getBean(DistributeLock.class);
				assertThat(lock.tryLock("report", "owner-value", 0, 60_000)).isTrue();
				assertThat(ownerShownTo(web, SecurityContext.NONE)).isEqualTo("******");
				assertThat(ownerShownTo(web, user("alice", "DEV"))).isEqualTo("******");
				assertThat(ownerShownTo(web, user("bob", "DEV", "ADMIN"))).isEqualTo("owner-value");
				assertThat(lock.releaseLock("report", "owner-value")).isTrue();
			});
	}

	@Test
	void webExtensionShowsOwnersToAnyAuthenticatedUserWithoutRoles() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=distributelocks",
					"management.endpoint.distributelocks.show-values=when-authorized")
			.run((context) -> {
				DistributeLocksEndpointWebExtension web = context.getBean(DistributeLocksEndpointWebExtension.class);
				DistributeLock lock = context.getBean(DistributeLock.class);
				assertThat(lock.tryLock("report", "owner-value", 0, 60_000)).isTrue();
				assertThat(ownerShownTo(web, SecurityContext.NONE)).isEqualTo("******");
				assertThat(ownerShownTo(web, user("alice"))).isEqualTo("owner-value");
				assertThat(lock.releaseLock("report", "owner-value")).isTrue();
			});
	}

	private static String ownerShownTo(DistributeLocksEndpointWebExtension web, SecurityContext user) {
		return web.heldLocks(user).locks().get(0).owner();
	}

	private static SecurityContext user(String name, String... roles) {
		return new SecurityContext() {

			@Override
			public Principal getPrincipal() {
				return () -> name;
			}

			@Override
			public boolean isUserInRole(String role) {
				return Arrays.asList(roles).contains(role);
			}

		};
	}

	@Test
	void endpointIsOnlyCreatedWhenExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(DistributeLocksEndpoint.class));
	}

	@Test
	void withoutTheActuatorThereIsNoEndpoint() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=distributelocks")
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DistributeLocksEndpoint.class)
				.hasSingleBean(DistributeLock.class));
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
