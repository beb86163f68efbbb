package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ZooKeeperLockAutoConfigurationTests {

	private static TestingServer server;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
		.withPropertyValues("distributelock.type=zookeeper");

	@BeforeAll
	static void startZooKeeper() throws Exception {
		server = EmbeddedZooKeeper.startServer();
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		server.close();
	}

	@Test
	void zookeeperTypeCreatesAWorkingLockOnAClientStartedAndClosedWithTheContext() {
		AtomicReference<CuratorFramework> built = new AtomicReference<>();
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.root=/app/locks")
			.run((context) -> {
				assertThat(context).hasSingleBean(DistributeLock.class)
					.hasSingleBean(ZooKeeperLockBackend.class)
					.hasSingleBean(CuratorFramework.class);
				CuratorFramework client = context.getBean(CuratorFramework.class);
				built.set(client);
				assertThat(client.getState()).isEqualTo(CuratorFrameworkState.STARTED);
				DistributeLock lock = context.getBean(DistributeLock.class);
				try (LockHandle handle = lock.tryAcquire("autoconfigured", Duration.ZERO, null).orElseThrow()) {
					assertThat(client.checkExists().forPath("/app/locks/autoconfigured")).isNotNull();
				}
			});
		assertThat(built.get().getState()).isEqualTo(CuratorFrameworkState.STOPPED);
	}

	@Test
	void propertiesReachTheClient() {
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.connection-timeout=7s", "distributelock.zookeeper.base-sleep=250ms",
					"distributelock.zookeeper.max-retries=4")
			.run((context) -> {
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.getZookeeperClient().getConnectionTimeoutMs()).isEqualTo(7_000);
				assertThat(client.getZookeeperClient().getRetryPolicy())
					.isInstanceOfSatisfying(ExponentialBackoffRetry.class, (retry) -> {
						assertThat(retry.getBaseSleepTimeMs()).isEqualTo(250);
						assertThat(retry.getN()).isEqualTo(4);
					});
			});
	}

	@Test
	void curatorBuilderCustomizersAreAppliedAfterTheProperties() {
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.connection-timeout=7s")
			.withBean("shorterTimeout", CuratorFrameworkBuilderCustomizer.class,
					() -> (builder) -> builder.connectionTimeoutMs(4_321))
			.withBean("tenantNamespace", CuratorFrameworkBuilderCustomizer.class,
					() -> (builder) -> builder.namespace("tenant-a"))
			.run((context) -> {
				CuratorFramework client = context.getBean(CuratorFramework.class);
				assertThat(client.getZookeeperClient().getConnectionTimeoutMs()).isEqualTo(4_321);
				DistributeLock lock = context.getBean(DistributeLock.class);
				try (LockHandle handle = lock.tryAcquire("customized", Duration.ZERO, null).orElseThrow()) {
					assertThat(client.usingNamespace(null).checkExists().forPath("/tenant-a/locks/customized"))
						.isNotNull();
				}
			});
	}

	@Test
	void connectStringAndTimeoutsSetByACustomizerAreCheckedAsThePropertiesAreNamingTheCustomizer() {
		// The checks ran on the properties only, before the customizers: a connect string
		// a customizer set started, and every lock call failed with a bare
		// "KeeperErrorCode = SystemError".
		this.contextRunner.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString())
			.withBean(CuratorFrameworkBuilderCustomizer.class,
					() -> (builder) -> builder.connectString("localhost:notaport"))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription())
					.startsWith("distributelock.zookeeper.connect-string is 'localhost:notaport', which ZooKeeper "
							+ "cannot use: ")
					.endsWith(" A CuratorFrameworkBuilderCustomizer bean set connectString to localhost:notaport "
							+ "after the properties were read.");
				assertThat(analysis.getAction()).startsWith("Correct the CuratorFrameworkBuilderCustomizer bean, or: "
						+ "Set distributelock.zookeeper.connect-string to comma-separated host:port pairs");
			});
		this.contextRunner.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString())
			.withBean(CuratorFrameworkBuilderCustomizer.class, () -> (builder) -> builder.sessionTimeoutMs(10))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription())
					.startsWith("distributelock.zookeeper.session-timeout is PT0.01S, below 1s: ")
					.endsWith(" A CuratorFrameworkBuilderCustomizer bean set sessionTimeoutMs to 10 after the "
							+ "properties were read.");
				assertThat(analysis.getAction()).startsWith("Correct the CuratorFrameworkBuilderCustomizer bean, or: "
						+ "Set distributelock.zookeeper.session-timeout to 1s or more");
			});
		this.contextRunner.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString())
			.withBean(CuratorFrameworkBuilderCustomizer.class, () -> (builder) -> builder.connectionTimeoutMs(0))
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.zookeeper.connection-timeout is PT0S, "
						+ "which ZooKeeper cannot use. A CuratorFrameworkBuilderCustomizer bean set connectionTimeoutMs "
						+ "to 0 after the properties were read.");
			});
		this.contextRunner.withPropertyValues("distributelock.zookeeper.connect-string=localhost:1")
			.withBean(CuratorFrameworkBuilderCustomizer.class,
					() -> (builder) -> builder.connectString(server.getConnectString()).sessionTimeoutMs(5_000))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				try (LockHandle handle = context.getBean(DistributeLock.class)
					.tryAcquire("customized.connection", Duration.ofSeconds(5), null)
					.orElseThrow()) {
					assertThat(handle.isHeld()).isTrue();
				}
			});
	}

	@Test
	void curatorBuilderCustomizersAreNotCalledForTheApplicationsClient() {
		AtomicReference<CuratorFrameworkFactory.Builder> customized = new AtomicReference<>();
		this.contextRunner.withUserConfiguration(UserCuratorConfiguration.class)
			.withBean("recording", CuratorFrameworkBuilderCustomizer.class, () -> customized::set)
			.run((context) -> {
				assertThat(context).hasNotFailed().hasSingleBean(CuratorFramework.class);
				assertThat(customized).hasNullValue();
			});
	}

	@Test
	void digestAuthenticatesTheClientAndKeepsTheLockNodesToThatUser() throws Exception {
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.root=/secure/locks", "distributelock.zookeeper.digest=app:secret")
			.run((context) -> {
				DistributeLock lock = context.getBean(DistributeLock.class);
				try (LockHandle handle = lock.tryAcquire("guarded", Duration.ZERO, null).orElseThrow();
						CuratorFramework stranger = EmbeddedZooKeeper.newClient(server.getConnectString(),
								Duration.ofSeconds(10))) {
					List<ACL> acl = context.getBean(CuratorFramework.class).getACL().forPath("/secure/locks/guarded");
					assertThat(acl).singleElement().satisfies((entry) -> {
						assertThat(entry.getId().getScheme()).isEqualTo("digest");
						assertThat(entry.getId().getId()).startsWith("app:");
					});
					assertThatExceptionOfType(KeeperException.NoAuthException.class)
						.isThrownBy(() -> stranger.delete().forPath("/secure/locks/guarded"));
					assertThat(handle.isHeld()).isTrue();
				}
			});
	}

	@Test
	void applicationsCuratorFrameworkIsUsedAndNoConnectStringIsNeeded() {
		this.contextRunner.withUserConfiguration(UserCuratorConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(CuratorFramework.class);
			CuratorFramework client = context.getBean("userCuratorFramework", CuratorFramework.class);
			DistributeLock lock = context.getBean(DistributeLock.class);
			try (LockHandle handle = lock.tryAcquire("on-the-users-client", Duration.ZERO, null).orElseThrow()) {
				assertThat(client.checkExists().forPath("/locks/on-the-users-client")).isNotNull();
			}
			assertThat(context.getBean(DefaultDistributeLock.class).backend())
				.isSameAs(context.getBean(ZooKeeperLockBackend.class));
		});
	}

	@Test
	void digestBesideTheApplicationsCuratorFrameworkFailsSayingItWouldNotBeApplied() {
		this.contextRunner.withUserConfiguration(UserCuratorConfiguration.class)
			.withPropertyValues("distributelock.zookeeper.digest=app:secret")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription())
					.startsWith("distributelock.zookeeper.digest is set, but the "
							+ "application defines its own CuratorFramework bean")
					.contains("the digest is not applied")
					.doesNotContain("secret");
				assertThat(analysis.getAction()).contains(".authorization(\"digest\"")
					.contains("remove distributelock.zookeeper.digest")
					.contains("remove your CuratorFramework bean");
			});
	}

	@Test
	void missingConnectStringFailsAndNamesTheProperty() {
		this.contextRunner.run((context) -> {
			FailureAnalysis analysis = failureAnalysis(context);
			assertThat(analysis.getDescription()).contains("distributelock.zookeeper.connect-string")
				.contains("CuratorFramework bean");
			assertThat(analysis.getAction()).contains("distributelock.zookeeper.connect-string");
		});
	}

	@Test
	void connectStringZooKeeperCannotParseFailsAtStartupNamingThePropertyAndItsForm() {
		// Each started before, and every lock call then failed with "KeeperErrorCode =
		// SystemError": the client cannot be created from such a connect string.
		for (String connectString : List.of("localhost:notaport", "localhost:99999", ",",
				server.getConnectString() + "/app/")) {
			this.contextRunner.withPropertyValues("distributelock.zookeeper.connect-string=" + connectString)
				.run((context) -> {
					FailureAnalysis analysis = failureAnalysis(context);
					assertThat(analysis.getDescription()).as(connectString)
						.startsWith("distributelock.zookeeper.connect-string is '" + connectString
								+ "', which ZooKeeper cannot use: ");
					assertThat(analysis.getAction()).as(connectString)
						.isEqualTo("Set distributelock.zookeeper.connect-string to comma-separated host:port pairs, "
								+ "optionally followed by a chroot path without a trailing slash, such as "
								+ "zk1:2181,zk2:2181,zk3:2181 or zk1:2181,zk2:2181/app.");
				});
		}
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString() + "/")
			.run((context) -> assertThat(context).as("an empty chroot is no chroot").hasNotFailed());
	}

	@Test
	void chrootThatDoesNotExistFailsTheStartupCheckNamingIt() {
		// The check passed before, and lock calls then hung in Curator's endless
		// attempts to create the lock root under a chroot ZooKeeper does not create.
		this.contextRunner.withConfiguration(AutoConfigurations.of(DistributeLockStartupCheckAutoConfiguration.class))
			.withPropertyValues(
					"distributelock.zookeeper.connect-string=" + server.getConnectString() + "/no/such/chroot",
					"distributelock.startup-check=fail")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).endsWith(" is unavailable at startup: the chroot "
						+ "/no/such/chroot of the connect string does not exist, and ZooKeeper does not create it; "
						+ "create it, or remove it from the connect string.");
			});
		this.contextRunner.withConfiguration(AutoConfigurations.of(DistributeLockStartupCheckAutoConfiguration.class))
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString() + "/",
					"distributelock.startup-check=fail")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void anApplicationCuratorFrameworkNeverStartedFailsTheStartupCheckSayingToStartIt() {
		this.contextRunner.withConfiguration(AutoConfigurations.of(DistributeLockStartupCheckAutoConfiguration.class))
			.withUserConfiguration(UnstartedCuratorConfiguration.class)
			.withPropertyValues("distributelock.startup-check=fail")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).endsWith(" is unavailable at startup: its CuratorFramework was "
						+ "never started; call start() on it before the first lock call, as @Bean(initMethod = "
						+ "\"start\", destroyMethod = \"close\") does.");
			});
	}

	@Test
	void digestWithAnEmptyPartFailsAndNamesThePropertyWithoutThePassword() {
		for (String digest : List.of("app:", ":secret", "app")) {
			this.contextRunner
				.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
						"distributelock.zookeeper.digest=" + digest)
				.run((context) -> {
					FailureAnalysis analysis = failureAnalysis(context);
					assertThat(analysis.getDescription()).isEqualTo("distributelock.zookeeper.digest must be of the "
							+ "form user:password, with neither part empty.");
					assertThat(analysis.getAction()).contains("distributelock.zookeeper.digest to user:password");
				});
		}
	}

	@Test
	void negativeMaxRetriesFailsAndNamesTheProperty() {
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.max-retries=-1")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).contains("distributelock.zookeeper.max-retries is -1");
				assertThat(analysis.getAction()).contains("distributelock.zookeeper.max-retries to 0");
			});
	}

	@Test
	void maxRetriesAboveCuratorsLimitFailsAndNamesTheLimit() {
		// It started with a warning of Curator's ("maxRetries too large (30). Pinning to
		// 29"), which names no property.
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.max-retries=30")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.zookeeper.max-retries is 30, above 29, "
						+ "the most Curator's ExponentialBackoffRetry makes: it would make 29.");
				assertThat(analysis.getAction())
					.isEqualTo("Set distributelock.zookeeper.max-retries to at most 29 (3 by default).");
			});
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.max-retries=29")
			.run((context) -> assertThat(context.getBean(CuratorFramework.class).getZookeeperClient().getRetryPolicy())
				.isInstanceOfSatisfying(ExponentialBackoffRetry.class,
						(retry) -> assertThat(retry.getN()).isEqualTo(29)));
	}

	@Test
	void aSessionTimeoutOfMillisecondsFailsAndNamesTheShortestOne() {
		for (String timeout : List.of("1ms", "10ms", "999ms")) {
			this.contextRunner
				.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
						"distributelock.zookeeper.session-timeout=" + timeout)
				.run((context) -> {
					FailureAnalysis analysis = failureAnalysis(context);
					assertThat(analysis.getDescription()).startsWith("distributelock.zookeeper.session-timeout is ")
						.contains("below 1s")
						.contains("ConnectionLoss");
					assertThat(analysis.getAction())
						.startsWith("Set distributelock.zookeeper.session-timeout to 1s or more");
				});
		}
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.session-timeout=1s")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void invalidRootFailsAndNamesTheProperty() {
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.root=locks/")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).contains("distributelock.zookeeper.root").contains("'locks/'");
				assertThat(analysis.getAction()).contains("/locks");
			});
	}

	@Test
	void rootInsideZooKeepersOwnNodeFailsAndNamesThePropertyUnlessAChrootOrNamespaceMovesIt() {
		// Each started before: under /zookeeper/config every lock call failed with
		// NoAuth,
		// and under /zookeeper a key named config or quota was ZooKeeper's own node, a
		// lock held for ever.
		for (String root : List.of("/zookeeper", "/zookeeper/config", "/zookeeper/locks")) {
			this.contextRunner
				.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
						"distributelock.zookeeper.root=" + root)
				.run((context) -> {
					FailureAnalysis analysis = failureAnalysis(context);
					assertThat(analysis.getDescription()).isEqualTo("distributelock.zookeeper.root is '" + root
							+ "', inside /zookeeper, which ZooKeeper reserves for itself: its own nodes there (config, "
							+ "quota) would read as locks held for ever, and it refuses to let clients write under "
							+ "some of them.");
					assertThat(analysis.getAction()).isEqualTo("Set distributelock.zookeeper.root to a path outside "
							+ "/zookeeper, such as /locks (the default), or remove it.");
				});
		}
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.root=/zookeepers")
			.run((context) -> assertThat(context).hasNotFailed());
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString() + "/app",
					"distributelock.zookeeper.root=/zookeeper/locks")
			.run((context) -> assertThat(context).as("under a chroot").hasNotFailed());
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.zookeeper.root=/zookeeper")
			.withBean(CuratorFrameworkBuilderCustomizer.class, () -> (builder) -> builder.namespace("app"))
			.run((context) -> {
				assertThat(context).as("in a namespace").hasNotFailed();
				try (LockHandle handle = context.getBean(DistributeLock.class)
					.tryAcquire("config", Duration.ofSeconds(5), null)
					.orElseThrow()) {
					assertThat(handle.isHeld()).isTrue();
				}
			});
	}

	@Test
	void jdbcShardsFailAtStartupSayingZooKeeperDoesNotUseThem() {
		this.contextRunner
			.withPropertyValues("distributelock.zookeeper.connect-string=" + server.getConnectString(),
					"distributelock.jdbc.shards=ds1,ds2")
			.run((context) -> {
				FailureAnalysis analysis = failureAnalysis(context);
				assertThat(analysis.getDescription()).isEqualTo("distributelock.jdbc.shards is set to [ds1, ds2], but "
						+ "distributelock.type is zookeeper, which does not use it: the locks are not sharded.");
				assertThat(analysis.getAction()).contains("Remove distributelock.jdbc.shards")
					.contains("set distributelock.type=jdbc");
			});
	}

	@Test
	void missingCuratorNamesTheDependencyToAdd() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(CuratorFramework.class)).run((context) -> {
			FailureAnalysis analysis = failureAnalysis(context);
			assertThat(analysis.getDescription()).contains("CuratorFramework").contains("missing");
			assertThat(analysis.getAction()).contains("org.apache.curator:curator-framework");
		});
	}

	private static FailureAnalysis failureAnalysis(AssertableApplicationContext context) {
		assertThat(context).hasFailed();
		FailureAnalysis analysis = new DistributeLockConfigurationFailureAnalyzer()
			.analyze(context.getStartupFailure());
		assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
		return analysis;
	}

	@Configuration(proxyBeanMethods = false)
	static class UserCuratorConfiguration {

		@Bean(destroyMethod = "close")
		CuratorFramework userCuratorFramework() throws Exception {
			return EmbeddedZooKeeper.newClient(server.getConnectString(), Duration.ofSeconds(10));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnstartedCuratorConfiguration {

		@Bean(destroyMethod = "close")
		CuratorFramework unstartedCuratorFramework() {
			return CuratorFrameworkFactory.builder()
				.connectString(server.getConnectString())
				.retryPolicy(new ExponentialBackoffRetry(100, 3))
				.build();
		}

	}

}
