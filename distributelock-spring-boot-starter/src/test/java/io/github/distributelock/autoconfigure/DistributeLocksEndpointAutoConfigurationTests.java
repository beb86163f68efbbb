package io.github.distributelock.autoconfigure;

import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.Arrays;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.actuate.DistributeLocksEndpoint;
import io.github.distributelock.actuate.DistributeLocksEndpoint.HeldLockDescriptor;
import io.github.distributelock.actuate.DistributeLocksEndpointWebExtension;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DistributeLocksEndpointAutoConfiguration}: the {@code distributelocks}
 * endpoint, on a real redis-server.
 */
class DistributeLocksEndpointAutoConfigurationTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
				DistributeLockAutoConfiguration.class, DistributeLocksEndpointAutoConfiguration.class))
		.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.port());

	@Test
	void endpointListsTheLocksThisInstanceHolds() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=distributelocks")
			.run((context) -> {
				assertThat(context).hasSingleBean(DistributeLocksEndpoint.class)
					.hasSingleBean(DistributeLocksEndpointWebExtension.class);
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
				try (LockHandle async = lock.tryAcquireAsync(LockRequest.of("account:2"))
					.get(10, TimeUnit.SECONDS)
					.orElseThrow()) {
					// Owned by its handle, not by the thread that asked: no thread shown.
					assertThat(endpoint.heldLocks().locks()).singleElement()
						.satisfies((held) -> assertThat(held.thread()).isNull());
				}
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

	@Test
	void withDistributeLockTurnedOffThereIsNoEndpoint() {
		this.contextRunner
			.withPropertyValues("distributelock.enabled=false",
					"management.endpoints.web.exposure.include=distributelocks")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DistributeLocksEndpoint.class)
				.doesNotHaveBean(DistributeLocksEndpointWebExtension.class));
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

}
