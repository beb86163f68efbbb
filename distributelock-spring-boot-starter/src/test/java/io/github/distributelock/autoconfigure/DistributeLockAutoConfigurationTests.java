package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.Lockable;
import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.aop.LockableAdvisor;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.MapPropertySource;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConnection;
import org.springframework.transaction.annotation.EnableTransactionManagement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class DistributeLockAutoConfigurationTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port());

	@Test
	void redisTypeCreatesAWorkingLockOnTheApplicationsRedis() {
		this.contextRunner.withPropertyValues("distributelock.type=redis").run((context) -> {
			assertThat(context).hasSingleBean(DistributeLock.class)
				.hasSingleBean(RedisLockBackend.class)
				.hasSingleBean(LockableAdvisor.class);
			DistributeLock lock = context.getBean(DistributeLock.class);
			try (LockHandle handle = lock.tryAcquire("autoconfigured", Duration.ZERO, null).orElseThrow()) {
				assertThat(handle.isHeld()).isTrue();
			}
		});
	}

	/**
	 * commons-pool2 is on the test class path for the pool's own tests; the build turns
	 * Lettuce's pool off for the others, so that they run what most applications run.
	 */
	@Test
	void redisTestsRunWithoutLettucesPoolUnlessTheyAskForIt() {
		this.contextRunner.withPropertyValues("distributelock.type=redis")
			.run((context) -> assertThat(context.getBean(LettuceConnectionFactory.class).getClientConfiguration())
				.isNotInstanceOf(LettucePoolingClientConfiguration.class));
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "spring.data.redis.lettuce.pool.enabled=true")
			.run((context) -> assertThat(context.getBean(LettuceConnectionFactory.class).getClientConfiguration())
				.isInstanceOf(LettucePoolingClientConfiguration.class));
	}

	@Test
	void typeIsCaseInsensitive() {
		this.contextRunner.withPropertyValues("distributelock.type=Redis")
			.run((context) -> assertThat(context).hasSingleBean(RedisLockBackend.class));
	}

	@Test
	void propertiesReachTheLockAndTheAdvisor() {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.watchdog-lease=2s",
					"distributelock.throw-on-lost=true", "distributelock.order=42",
					"distributelock.redis.key-prefix=app1:lock:")
			.run((context) -> {
				assertThat(context.getBean(LockableAdvisor.class).getOrder()).isEqualTo(42);
				DistributeLockProperties properties = context.getBean(DistributeLockProperties.class);
				assertThat(properties.getWatchdogLease()).isEqualTo(Duration.ofSeconds(2));
				assertThat(properties.isThrowOnLost()).isTrue();
				DistributeLock lock = context.getBean(DistributeLock.class);
				try (LockHandle handle = lock.tryAcquire("prefixed", Duration.ZERO, null).orElseThrow()) {
					RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
					try (var connection = factory.getConnection()) {
						assertThat(connection.keyCommands().exists("app1:lock:prefixed".getBytes())).isTrue();
					}
				}
			});
	}

	@Test
	void redisBackendCustomizersAreAppliedAfterTheProperties() {
		this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.redis.key-prefix=app1:lock:")
			.withBean(RedisLockBackendCustomizer.class,
					() -> (settings) -> settings.setKeyPrefix(settings.getKeyPrefix() + "tenant-a:"))
			.run((context) -> {
				DistributeLock lock = context.getBean(DistributeLock.class);
				try (LockHandle handle = lock.tryAcquire("customized", Duration.ZERO, null).orElseThrow()) {
					RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
					try (var connection = factory.getConnection()) {
						assertThat(connection.keyCommands().exists("app1:lock:tenant-a:customized".getBytes()))
							.isTrue();
					}
				}
			});
	}

	@Test
	void badValueSetByARedisCustomizerFailsAtStartupNamingTheCustomizer() {
		this.contextRunner.withPropertyValues("distributelock.type=redis")
			.withBean(RedisLockBackendCustomizer.class, () -> (settings) -> settings.setMinReplicasToAck(-2))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.redis.min-replicas-to-ack is -2, "
						+ "below 0. A RedisLockBackendCustomizer bean set minReplicasToAck to -2 after the properties "
						+ "were read.");
				assertThat(analysis.getAction()).startsWith("Correct the RedisLockBackendCustomizer bean, or: Set "
						+ "distributelock.redis.min-replicas-to-ack to 0");
			});
	}

	@Test
	void nullKeyPrefixSetByARedisCustomizerFailsAtStartup() {
		this.contextRunner.withPropertyValues("distributelock.type=redis")
			.withBean(RedisLockBackendCustomizer.class, () -> (settings) -> settings.setKeyPrefix(null))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.redis.key-prefix is null: every lock "
						+ "key in Redis would start with the text \"null\". A RedisLockBackendCustomizer bean set "
						+ "keyPrefix to null after the properties were read.");
			});
	}

	@Test
	void nullDurationsSetByARedisCustomizerFailAtStartupNamingThePropertyAndTheCustomizer() {
		// A NullPointerException failed the start, naming neither.
		this.contextRunner.withPropertyValues("distributelock.type=redis")
			.withBean(RedisLockBackendCustomizer.class, () -> (settings) -> settings.setFenceIdleTimeout(null))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.redis.fence-idle-timeout is null. A "
						+ "RedisLockBackendCustomizer bean set fenceIdleTimeout to null after the properties were read.");
				assertThat(analysis.getAction()).isEqualTo("Correct the RedisLockBackendCustomizer bean, or: Set "
						+ "distributelock.redis.fence-idle-timeout to a positive duration (1m by default), or remove it.");
			});
		this.contextRunner.withPropertyValues("distributelock.type=redis")
			.withBean(RedisLockBackendCustomizer.class, () -> (settings) -> settings.setReplicaAckTimeout(null))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.redis.replica-ack-timeout is null. A "
						+ "RedisLockBackendCustomizer bean set replicaAckTimeout to null after the properties were "
						+ "read.");
				assertThat(analysis.getAction()).isEqualTo("Correct the RedisLockBackendCustomizer bean, or: Set "
						+ "distributelock.redis.replica-ack-timeout to a positive duration, or remove it for its "
						+ "default.");
			});
	}

	@Test
	void lockableDefaultsComeFromTheProperties() {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.fail-message=Busy|4242",
					"distributelock.separator=:", "distributelock.fail-on-null-field=true")
			.withUserConfiguration(StockServiceConfiguration.class)
			.run((context) -> {
				StockService stock = context.getBean(StockService.class);
				try (RedisLockBackend backend = new RedisLockBackend(context.getBean(RedisConnectionFactory.class));
						DefaultDistributeLock otherInstance = new DefaultDistributeLock(backend);
						LockHandle held = otherInstance.tryAcquire("stock:7", Duration.ZERO, null).orElseThrow()) {
					assertThatExceptionOfType(LockFailedException.class).isThrownBy(() -> stock.take(7L))
						.satisfies((ex) -> {
							assertThat(ex.getMessage()).isEqualTo("Busy");
							assertThat(ex.getCode()).isEqualTo("4242");
							assertThat(ex.getLockKey()).isEqualTo("stock:7");
						});
				}
				assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> stock.take(null));
			});
	}

	@Test
	void minReplicasToAckReachesTheBackendWhichRefusesALockNoReplicaAcknowledged() {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.min-replicas-to-ack=1",
					"distributelock.redis.replica-ack-timeout=200ms")
			.run((context) -> {
				DistributeLock lock = context.getBean(DistributeLock.class);
				// The embedded Redis has no replica, so WAIT 1 200 answers 0.
				assertThatExceptionOfType(DistributeLockException.class)
					.isThrownBy(() -> lock.tryAcquire("unreplicated", Duration.ZERO, null))
					.withMessageContaining("'unreplicated'")
					.withMessageContaining("only 0 of the 1 replicas")
					.withMessageContaining("200 ms");
				RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
				try (var connection = factory.getConnection()) {
					assertThat(connection.keyCommands().exists("lock:unreplicated".getBytes())).isFalse();
				}
			});
	}

	@Test
	void minReplicasToAckIsAcceptedOnRedisCluster() {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.min-replicas-to-ack=1",
					"spring.data.redis.cluster.nodes=127.0.0.1:" + redis.port())
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RedisLockBackend.class));
	}

	@Test
	void negativeMinReplicasToAckFailsAtStartupSayingWhatToSet() {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.min-replicas-to-ack=-1")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription())
					.isEqualTo("distributelock.redis.min-replicas-to-ack is -1, below 0.");
				assertThat(analysis.getAction()).isEqualTo("Set distributelock.redis.min-replicas-to-ack to 0 (not to "
						+ "wait for replicas, the default) or to how many replicas must acknowledge each lock.");
			});
	}

	@Test
	void zeroReplicaAckTimeoutFailsAtStartup() {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.min-replicas-to-ack=1",
					"distributelock.redis.replica-ack-timeout=0s")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.redis.replica-ack-timeout is PT0S: "
						+ "with min-replicas-to-ack, a WAIT without a timeout would block for ever when the replicas do "
						+ "not answer.");
				assertThat(analysis.getAction()).isEqualTo(
						"Set distributelock.redis.replica-ack-timeout to a positive duration, or remove it for its default.");
			});
	}

	@Test
	void replicaAckTimeoutNotBelowTheCommandTimeoutFailsAtStartupNamingBoth() {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.min-replicas-to-ack=1",
					"distributelock.redis.replica-ack-timeout=2s", "spring.data.redis.timeout=2s")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).startsWith("distributelock.redis.replica-ack-timeout is 2000 ms, "
						+ "not below the Redis command timeout of 2000 ms (spring.data.redis.timeout)");
				assertThat(analysis.getAction())
					.startsWith("Set distributelock.redis.replica-ack-timeout below spring.data.redis.timeout");
			});
	}

	@Test
	void replicaAckTimeoutNotBelowTheWatchdogLeaseFailsAtStartupNamingBoth() {
		// It started: an acquisition could be confirmed by the replicas after the lease
		// it
		// took had run out, and renewals waited for them as long.
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.min-replicas-to-ack=1",
					"distributelock.watchdog-lease=500ms")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.redis.replica-ack-timeout is 1000 ms, "
						+ "not below distributelock.watchdog-lease (500 ms): an acquisition waits that long for the "
						+ "replicas after it took the lock, so a lock could run out before its caller is told it holds "
						+ "it, and a renewal that waits as long lets the lease run out.");
				assertThat(analysis.getAction()).isEqualTo("Set distributelock.redis.replica-ack-timeout well below "
						+ "distributelock.watchdog-lease (the watchdog renews every third of it), or lengthen "
						+ "distributelock.watchdog-lease (30s by default).");
			});
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.min-replicas-to-ack=1",
					"distributelock.watchdog-lease=500ms", "distributelock.redis.replica-ack-timeout=100ms")
			.run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.watchdog-lease=500ms")
			.run((context) -> assertThat(context).as("without replicas to wait for").hasNotFailed());
	}

	@Test
	void failMessageWithoutAMessageFailsAtStartupNamingTheProperty() {
		for (String failMessage : List.of("|2101", "")) {
			this.contextRunner
				.withPropertyValues("distributelock.type=redis", "distributelock.fail-message=" + failMessage)
				.run((context) -> {
					FailureAnalysis analysis = failureAnalysis(context);
					assertThat(analysis.getDescription()).isEqualTo("distributelock.fail-message is \"" + failMessage
							+ "\", which has no message before its code: callers of a @Lockable method whose lock "
							+ "was not taken would get an empty message.");
					assertThat(analysis.getAction()).contains("distributelock.fail-message to a message");
				});
		}
	}

	@Test
	void watchdogLeaseThatIsNotPositiveFailsAtStartupNamingTheProperty() {
		for (String lease : List.of("0s", "-5s")) {
			this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.watchdog-lease=" + lease)
				.run((context) -> {
					FailureAnalysis analysis = failureAnalysis(context);
					assertThat(analysis.getDescription()).isEqualTo(
							"distributelock.watchdog-lease is " + Duration.parse("PT" + lease.toUpperCase(Locale.ROOT))
									+ ": a lock's lease in the store must last at least 1 ms.");
					assertThat(analysis.getAction()).isEqualTo(
							"Set distributelock.watchdog-lease to a positive duration (30s by default), or remove it.");
				});
		}
	}

	@Test
	void watchdogLeaseTooShortToBeRenewedInTimeFailsAtStartupSayingWhy() {
		this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.watchdog-lease=99ms")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).startsWith(
						"distributelock.watchdog-lease is PT0.099S, shorter than 100 ms: the watchdog renews a lock "
								+ "every third of its lease");
				assertThat(analysis.getAction()).startsWith("Set distributelock.watchdog-lease to at least 100ms");
			});
		this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.watchdog-lease=100ms")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void watchdogLeaseLongerThanNanosecondsCountFailsAtStartupNamingTheLimit() {
		// It started before, and the first lock without a fixed lease failed with an
		// ArithmeticException from the watchdog's period in nanoseconds.
		this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.watchdog-lease=106752d")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.watchdog-lease is PT2562048H, longer "
						+ "than the lock service can count in nanoseconds (106751 days, about 292 years).");
				assertThat(analysis.getAction()).isEqualTo("Set distributelock.watchdog-lease to at most 106751d "
						+ "(30s by default, which is also how long a crashed instance's locks stay held), or remove it.");
			});
		this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.watchdog-lease=106751d")
			.run((context) -> {
				try (LockHandle handle = context.getBean(DistributeLock.class)
					.tryAcquire("watchdog.longest", Duration.ZERO, null)
					.orElseThrow()) {
					assertThat(handle.isHeld()).isTrue();
				}
			});
	}

	@Test
	void fenceIdleTimeoutThatIsNotPositiveFailsAtStartupNamingTheProperty() {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.fence-idle-timeout=-5s")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.redis.fence-idle-timeout is PT-5S: "
						+ "the fencing counter of a key would expire as soon as it is written.");
				assertThat(analysis.getAction()).isEqualTo(
						"Set distributelock.redis.fence-idle-timeout to a positive duration (1m by default), or remove it.");
			});
	}

	@Test
	void fenceIdleTimeoutLongerThanRedisCanCountFailsAtStartupNamingTheLimit() {
		// The start failed with a bare ArithmeticException ("long overflow") from the
		// timeout in milliseconds, naming neither the property nor the fix.
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.fence-idle-timeout=106751991168d")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.redis.fence-idle-timeout is "
						+ "PT2562047788032H, longer than Redis can keep a key (100000000000 days, about 273 million "
						+ "years): it counts expiry times in milliseconds since 1970, in 64 bits.");
				assertThat(analysis.getAction()).isEqualTo("Set distributelock.redis.fence-idle-timeout to at most "
						+ "100000000000d (1m by default), or remove it.");
			});
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.redis.fence-idle-timeout=100000000000d")
			.run((context) -> {
				try (LockHandle handle = context.getBean(DistributeLock.class)
					.tryAcquire("fence.longest", Duration.ZERO, null)
					.orElseThrow()) {
					assertThat(handle.isHeld()).isTrue();
				}
			});
	}

	@Test
	void typeWithSpacesAroundItFailsSayingToRemoveThem() {
		// As an environment variable can carry it; property files keep trailing spaces
		// too.
		this.contextRunner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.addFirst(new MapPropertySource("environment", Map.of("distributelock.type", "redis "))))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).contains("'redis '").contains("spaces");
				assertThat(analysis.getAction()).contains("to 'redis', without the spaces");
			});
	}

	@Test
	void advisorOutsideTheTransactionAdvisorStarts() {
		this.contextRunner.withPropertyValues("distributelock.type=redis")
			.withUserConfiguration(TransactionsConfiguration.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void orderNotBelowTheTransactionAdvisorsFailsAtStartup() {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "distributelock.order=" + Ordered.LOWEST_PRECEDENCE)
			.withUserConfiguration(TransactionsConfiguration.class)
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).contains("distributelock.order is " + Ordered.LOWEST_PRECEDENCE)
					.contains("release its lock before the commit");
				assertThat(analysis.getAction()).contains("Set distributelock.order below");
			});
	}

	@Test
	void advisorRunsOutsideTheTransactionAdvisorByDefault() {
		this.contextRunner.withPropertyValues("distributelock.type=redis")
			.run((context) -> assertThat(context.getBean(LockableAdvisor.class).getOrder())
				.isLessThan(Ordered.LOWEST_PRECEDENCE));
	}

	@Test
	void backsOffForTheApplicationsOwnBeans() {
		this.contextRunner.withPropertyValues("distributelock.type=redis")
			.withUserConfiguration(CustomBackendConfiguration.class)
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RedisLockBackend.class);
				assertThat(context.getBean(DefaultDistributeLock.class).backend())
					.isSameAs(context.getBean("customBackend"));
			});
	}

	@Test
	void jdbcShardsWithAnotherTypeFailAtStartupSayingToRemoveThemOrChooseJdbc() {
		this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.jdbc.shards=ds1,ds2")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.jdbc.shards is set to [ds1, ds2], but "
						+ "distributelock.type is redis, which does not use it: the locks are not sharded.");
				assertThat(analysis.getAction()).isEqualTo("Remove distributelock.jdbc.shards, or set "
						+ "distributelock.type=jdbc to keep the locks in the lock table of those DataSource beans.");
			});
	}

	@Test
	void jdbcShardsWithTheApplicationsOwnBackendFailAtStartupSayingWhichBeanTakesTheirPlace() {
		this.contextRunner.withPropertyValues("distributelock.type=jdbc", "distributelock.jdbc.shards=ds1,ds2")
			.withUserConfiguration(CustomBackendConfiguration.class)
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription())
					.startsWith("distributelock.jdbc.shards is set to [ds1, ds2], but the application defines its own "
							+ "LockBackend bean (" + CustomBackendConfiguration.class.getName())
					.endsWith("), which takes the place of the sharded backend: the locks are not sharded by it.");
				assertThat(analysis.getAction()).contains("Remove distributelock.jdbc.shards")
					.contains("remove the application's LockBackend bean");
			});
	}

	@Test
	void canBeTurnedOff() {
		this.contextRunner.withPropertyValues("distributelock.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(DistributeLock.class)
				.doesNotHaveBean(LockableAdvisor.class)
				.doesNotHaveBean(LockStoreMonitor.class);
		});
	}

	@Test
	void isTurnedOffByEveryFalseValueOfABoolean() {
		for (String off : List.of("false", "FALSE", "off", "no", "0")) {
			this.contextRunner.withPropertyValues("distributelock.enabled=" + off)
				.run((context) -> assertThat(context).as("distributelock.enabled=" + off)
					.hasNotFailed()
					.doesNotHaveBean(DistributeLock.class));
		}
	}

	@Test
	void staysOnForEveryTrueValueOfABoolean() {
		// A value the binder reads as true must not turn the locks off, and with them the
		// exclusion of every @Lockable method.
		for (String on : List.of("true", "TRUE", "on", "yes", "1")) {
			this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.enabled=" + on)
				.run((context) -> assertThat(context).as("distributelock.enabled=" + on)
					.hasSingleBean(DistributeLock.class)
					.hasSingleBean(LockableAdvisor.class));
		}
	}

	@Test
	void enabledThatIsNotABooleanFailsAtStartupNamingTheProperty() {
		this.contextRunner.withPropertyValues("distributelock.type=redis", "distributelock.enabled=ture")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasRootCauseInstanceOf(IllegalArgumentException.class);
				BindException bind = findCause(context.getStartupFailure(), BindException.class);
				assertThat(bind).as("binding failure in %s", context.getStartupFailure()).isNotNull();
				assertThat(bind.getName()).hasToString("distributelock.enabled");
			});
	}

	private static <E extends Throwable> @Nullable E findCause(@Nullable Throwable failure, Class<E> type) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
		}
		return null;
	}

	@Test
	void missingTypeFailsAndListsTheValidOnes() {
		this.contextRunner.run((context) -> {
			FailureAnalysis analysis = failureAnalysis(context);
			assertThat(analysis.getDescription()).contains("distributelock.type is not set");
			assertThat(analysis.getAction()).contains("redis, zookeeper, jdbc")
				.contains("distributelock.enabled=false");
		});
	}

	@Test
	void unknownTypeFailsAndListsTheValidOnes() {
		this.contextRunner.withPropertyValues("distributelock.type=etcd").run((context) -> {
			FailureAnalysis analysis = failureAnalysis(context);
			assertThat(analysis.getDescription()).contains("'etcd'");
			assertThat(analysis.getAction()).contains("redis, zookeeper, jdbc");
		});
	}

	@Test
	void missingRedisLibraryNamesTheDependencyToAdd() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis")
			.withClassLoader(new FilteredClassLoader("org.springframework.data.redis"))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).contains("RedisConnectionFactory").contains("missing");
				assertThat(analysis.getAction()).contains("org.springframework.boot:spring-boot-starter-data-redis");
			});
	}

	@Test
	void missingLettuceIsNamedToo() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis")
			.withClassLoader(new FilteredClassLoader("io.lettuce"))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).contains("io.lettuce.core.RedisClient");
				assertThat(analysis.getAction()).contains("Lettuce");
			});
	}

	@Test
	void missingRedisConnectionFactorySaysHowToGetOne() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).contains("needs a RedisConnectionFactory bean");
				assertThat(analysis.getAction()).contains("spring-boot-starter-data-redis")
					.contains("spring.data.redis");
			});
	}

	@Test
	void redisConnectionFactoryOfAnotherClientFailsAtStartupNamingItNotMinReplicasToAck() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis")
			.withBean(RedisConnectionFactory.class, OtherClientConnectionFactory::new)
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription())
					.isEqualTo("distributelock.type=redis needs a Lettuce connection factory, and the application's "
							+ "RedisConnectionFactory is a " + OtherClientConnectionFactory.class.getName() + ".");
				assertThat(analysis.getAction()).doesNotContain("min-replicas-to-ack")
					.contains("LettuceConnectionFactory bean")
					.contains("LockBackend bean");
			});
	}

	@Test
	void lockableFieldNamingNoParameterFailsAtStartupWithTheMethodAndThePath() {
		this.contextRunner.withPropertyValues("distributelock.type=redis")
			.withUserConfiguration(BrokenLockableConfiguration.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidLockableFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription())
					.contains(BrokenService.class.getName() + ".lock(java.lang.String)")
					.contains("'product.id'");
				assertThat(analysis.getAction()).contains("[item]");
			});
	}

	/**
	 * A broken {@code @Lockable} method beside a valid one: matching stops at the first
	 * method that matches, and an interface (JDK) proxy looks up the advice of the others
	 * only at their first call, yet the broken one fails at startup.
	 */
	@ParameterizedTest(name = "spring.aop.proxy-target-class={0}")
	@ValueSource(booleans = { true, false })
	void lockableFieldNamingNoParameterOnAnyMethodFailsAtStartupWithEitherKindOfProxy(boolean proxyTargetClass) {
		this.contextRunner
			.withPropertyValues("distributelock.type=redis", "spring.aop.proxy-target-class=" + proxyTargetClass)
			.withUserConfiguration(PartlyBrokenLockableConfiguration.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				FailureAnalysis analysis = new InvalidLockableFailureAnalyzer().analyze(context.getStartupFailure());
				assertThat(analysis).isNotNull();
				assertThat(analysis.getDescription())
					.contains(PartlyBrokenServiceBase.class.getName() + ".broken(java.lang.String)")
					.contains("'nope.id'");
			});
	}

	static FailureAnalysis failureAnalysis(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new DistributeLockConfigurationFailureAnalyzer()
			.analyze(context.getStartupFailure());
		assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class TransactionsConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	static class StockServiceConfiguration {

		@Bean
		StockService stockService() {
			return new StockService();
		}

	}

	static class StockService {

		@Lockable(key = "stock", fields = "id")
		void take(@Nullable Long id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BrokenLockableConfiguration {

		@Bean
		BrokenService brokenService() {
			return new BrokenService();
		}

	}

	static class BrokenService {

		@Lockable(key = "broken", fields = "product.id")
		void lock(String item) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PartlyBrokenLockableConfiguration {

		@Bean
		PartlyBrokenService partlyBrokenService() {
			return new PartlyBrokenServiceImpl();
		}

	}

	interface PartlyBrokenService {

		void fine(String id);

		void broken(String id);

	}

	abstract static class PartlyBrokenServiceBase implements PartlyBrokenService {

		@Override
		@Lockable(key = "broken", fields = "nope.id")
		public void broken(String id) {
		}

	}

	static class PartlyBrokenServiceImpl extends PartlyBrokenServiceBase {

		@Override
		@Lockable(key = "fine", fields = "id")
		public void fine(String id) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	/**
	 * The connection factory of a Redis client other than Lettuce (Jedis's, Redisson's),
	 * which the lock backend cannot use; the startup fails before it is asked for a
	 * connection.
	 */
	static class OtherClientConnectionFactory implements RedisConnectionFactory {

		@Override
		public boolean getConvertPipelineAndTxResults() {
			return false;
		}

		@Override
		public RedisConnection getConnection() {
			throw new UnsupportedOperationException("not connected to any Redis");
		}

		@Override
		public RedisClusterConnection getClusterConnection() {
			throw new UnsupportedOperationException("not connected to any Redis");
		}

		@Override
		public RedisSentinelConnection getSentinelConnection() {
			throw new UnsupportedOperationException("not connected to any Redis");
		}

		@Override
		public @Nullable DataAccessException translateExceptionIfPossible(RuntimeException ex) {
			return null;
		}

	}

	static class CustomBackendConfiguration {

		@Bean
		LockBackend customBackend() {
			return new LockBackend() {

				@Override
				public String name() {
					return "custom";
				}

				@Override
				public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
					return CompletableFuture.completedFuture(AcquireResult.acquired(1));
				}

				@Override
				public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
					return CompletableFuture.completedFuture(true);
				}

				@Override
				public CompletionStage<Boolean> release(Claim claim) {
					return CompletableFuture.completedFuture(true);
				}

				@Override
				public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
					return CompletableFuture.completedFuture(null);
				}

			};
		}

	}

}
