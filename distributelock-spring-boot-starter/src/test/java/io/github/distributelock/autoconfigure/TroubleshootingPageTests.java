package io.github.distributelock.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;

import io.github.distributelock.FencedResource;
import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.LockServiceShutdownException;
import io.github.distributelock.Lockable;
import io.github.distributelock.LogLines;
import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.aop.InvalidLockableException;
import io.github.distributelock.aop.LockKeyResolver;
import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.autoconfigure.DistributeLockProperties.StartupCheck;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockStoreProbe;
import io.github.distributelock.core.MemoryLockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.LockDialectMismatchException;
import io.github.distributelock.jdbc.UnsupportedLockDatabaseException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code docs/troubleshooting.md} quotes the messages users see as the code writes them,
 * for the messages whose text does not depend on the store's answer.
 */
@ExtendWith(OutputCaptureExtension.class)
class TroubleshootingPageTests {

	private static final Path PAGE = Path.of(System.getProperty("basedir", "."), "..", "docs", "troubleshooting.md")
		.normalize();

	private static String page;

	@BeforeAll
	static void readThePage() throws IOException {
		page = Files.readString(PAGE, StandardCharsets.UTF_8);
	}

	@Test
	void quotesTheStartupFailuresOfTheStoreChoice() {
		ClassLoader classLoader = getClass().getClassLoader();
		assertQuoted(UnavailableLockBackendConfiguration.explain(null, classLoader).getDescription());
		assertQuoted(UnavailableLockBackendConfiguration.explain("xyz", classLoader).getDescription());
		assertQuoted(UnavailableLockBackendConfiguration
			.explain("redis", new FilteredClassLoader("org.springframework.data.redis"))
			.getDescription());
	}

	@Test
	void quotesTheDefaultFailureOfALockableMethod() {
		LockFailedException failure = LockFailedException.of(new DistributeLockProperties().getFailMessage(), "k");
		assertQuoted("LockFailedException: " + failure.getMessage() + "` (code `" + failure.getCode() + "`)");
	}

	@Test
	void quotesTheStartOfTheLostLockException() {
		String message = new LockLostException("k", "redis").getMessage();
		assertQuoted("LockLostException: " + message.substring(0, message.indexOf(';') + 1) + " ...");
	}

	@Test
	void quotesTheRefusalOfAClosedHandleByAFencedResource() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			LockHandle closed = lock.tryAcquire("k", Duration.ZERO, null).orElseThrow();
			closed.close();
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> new FencedResource().write(closed, () -> "written"))
				.satisfies((ex) -> assertQuoted("IllegalStateException: " + ex.getMessage() + "`"));
		}
	}

	@Test
	void quotesTheShutdownOfTheLockServiceByTheContextAndByADirectClose() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withBean(LockBackend.class, StubBackend::new)
			.run((context) -> {
				DefaultDistributeLock lock = context.getBean(DefaultDistributeLock.class);
				context.close();
				assertShutdownQuoted(lock);
			});
		DefaultDistributeLock closedDirectly = new DefaultDistributeLock(new StubBackend());
		closedDirectly.close();
		assertShutdownQuoted(closedDirectly);
	}

	private static void assertShutdownQuoted(DefaultDistributeLock closed) {
		assertThatExceptionOfType(LockServiceShutdownException.class)
			.isThrownBy(() -> closed.tryAcquire("k", Duration.ZERO, null))
			.satisfies((ex) -> assertQuoted("LockServiceShutdownException: " + ex.getMessage() + "`"));
	}

	@Test
	void quotesWhatIsLoggedAndThrownAboutAStoreThatIsDown(CapturedOutput output) {
		StubBackend backend = new StubBackend();
		LockStoreMonitor probe = new LockStoreMonitor(backend, "<address>");
		LockStoreStartupCheck check = new LockStoreStartupCheck(probe, StartupCheck.WARN,
				LockStoreAddress.configuredBy("redis"));
		DistributeLockHealthIndicator health = new DistributeLockHealthIndicator(probe);
		backend.down = true;
		check.warnIfUnavailable();
		backend.down = false;
		health.health();
		backend.down = true;
		health.health();
		assertThat(LogLines.containing(output, "Lock store ")).hasSize(3)
			.allSatisfy((line) -> assertQuoted(line.substring(line.indexOf("Lock store "))));
		assertThatExceptionOfType(DistributeLockConfigurationException.class).isThrownBy(check::failIfUnavailable)
			.satisfies((ex) -> assertQuoted(ex.getDescription()));
	}

	@Test
	void quotesTheStartupFailuresOfTheJdbcDialect() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc", "distributelock.jdbc.dialect=mysq")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOfSatisfying(DistributeLockConfigurationException.class,
						(ex) -> assertQuoted(ex.getDescription())));
		assertQuoted(new LockDialectMismatchException("mariadb", "MySQL 8.0.36", "mysql").getMessage());
		assertQuoted(new LockDialectMismatchException("postgresql", "Apache Derby 10.16.1.1", null).getMessage());
		assertQuoted(new UnsupportedLockDatabaseException("Apache Derby 10.16.1.1", "there is no SQL dialect for it")
			.getMessage());
	}

	@Test
	void quotesTheStartupFailuresOfMinimumHoldsAndSkips() {
		LockKeyResolver resolver = new LockKeyResolver("_", "busy|1");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> resolver.definition(BadJobs.class.getDeclaredMethod("negative"), BadJobs.class))
			.satisfies((ex) -> assertQuoted("@Lockable on ...: " + ex.getProblem()));
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> resolver.definition(BadJobs.class.getDeclaredMethod("beyondLease"), BadJobs.class))
			.satisfies((ex) -> assertQuoted(ex.getProblem()));
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> resolver.definition(BadJobs.class.getDeclaredMethod("skippingInt"), BadJobs.class))
			.satisfies((ex) -> assertQuoted("@Lockable on ...: " + ex.getProblem()));
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> resolver.definition(BadJobs.class.getDeclaredMethod("scheduledBoolean"), BadJobs.class))
			.satisfies((ex) -> assertQuoted(ex.getProblem().substring(0, ex.getProblem().indexOf("boolean") + 7)));
	}

	@Test
	void quotesTheWarningOfAMinimumHoldNotShorterThanTheSchedule(CapturedOutput output) throws Exception {
		new LockKeyResolver("_", "busy|1").definition(BadJobs.class.getDeclaredMethod("minimumHoldAsLongAsTheRate"),
				BadJobs.class);
		assertThat(LogLines.containing(output, "is not shorter than the fixedRate")).singleElement()
			.satisfies((line) -> assertQuoted("@Lockable on ...: "
					+ line.substring(line.indexOf("minHoldMs ("), line.indexOf(" ms): ") + 6) + "...`"));
	}

	@Test
	void quotesTheStartupFailuresOfJdbcShards() {
		String run = UUID.randomUUID().toString();
		try (HikariDataSource ds1 = new HikariDataSource()) {
			ds1.setJdbcUrl("jdbc:h2:mem:ds1-" + run + ";DB_CLOSE_DELAY=-1");
			JdbcLockBackend unsharded = new JdbcLockBackend(ds1);
			unsharded.createSchema();
			for (int i = 0; i < 3; i++) {
				assertThat(Backends.tryAcquire(unsharded, "held." + i, "owner", Duration.ofMinutes(1)).acquired())
					.isTrue();
			}
			ApplicationContextRunner contextRunner = new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
				.withUserConfiguration(ShardedJdbcLockAutoConfigurationTests.ThreeDatabases.class)
				.withPropertyValues("distributelock.type=jdbc", "test.run=" + run);
			assertStartupFailureQuoted(contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2"));
			for (int i = 0; i < 3; i++) {
				assertThat(Backends.release(unsharded, "held." + i, "owner")).isTrue();
			}
			assertStartupFailureQuoted(contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,dsx"));
			assertStartupFailureQuoted(contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2,ds1"));
			assertStartupFailureQuoted(contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1",
					"distributelock.jdbc.table-name=" + "x".repeat(57)));
			contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2")
				.run((context) -> assertThat(context).hasNotFailed());
			assertStartupFailureQuoted(contextRunner.withPropertyValues("distributelock.jdbc.shards=ds1,ds2,ds3"));
		}
	}

	@Test
	void quotesTheStartupFailuresOfJdbcShardsThatAreNotUsed() {
		DistributeLockProperties properties = new DistributeLockProperties();
		properties.getJdbc().setShards(List.of("ds1", "ds2"));
		properties.setType("redis");
		assertThat(DistributeLockAutoConfiguration.unusedShards(new StubBackend(), properties)).isNotNull()
			.satisfies((ex) -> assertQuoted(ex.getDescription()));
		properties.setType("jdbc");
		assertThat(DistributeLockAutoConfiguration.unusedShards(new StubBackend(), properties)).isNotNull()
			.satisfies((ex) -> assertQuoted(ex.getDescription().replace(StubBackend.class.getName(), "...")));
	}

	@Test
	void quotesTheStartupFailuresOfOutOfRangeAndCustomizedStoreSettings() {
		// Each fails before anything reaches a store, so none needs one running.
		ApplicationContextRunner redis = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=redis");
		assertStartupFailureQuotedUpTo(
				redis.withPropertyValues("distributelock.redis.fence-idle-timeout=106751991168d"), "years): ");
		assertStartupFailureQuotedUpTo(redis.withPropertyValues("distributelock.redis.min-replicas-to-ack=1",
				"distributelock.watchdog-lease=500ms"), "ms): ");
		assertStartupFailureQuotedUpTo(
				new ApplicationContextRunner()
					.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
							DistributeLockAutoConfiguration.class))
					.withPropertyValues("distributelock.type=jdbc", "distributelock.jdbc.released-row-retention=500us"),
				"milliseconds, ");
		ApplicationContextRunner zookeeper = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=zookeeper", "distributelock.zookeeper.connect-string=localhost:1");
		assertStartupFailureQuotedUpTo(zookeeper.withPropertyValues("distributelock.zookeeper.root=/zookeeper/locks"),
				"itself: ");
		zookeeper.withPropertyValues("distributelock.zookeeper.max-retries=30")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOfSatisfying(DistributeLockConfigurationException.class,
						(ex) -> assertQuoted(ex.getDescription() + "`")));
		zookeeper
			.withBean(CuratorFrameworkBuilderCustomizer.class,
					() -> (builder) -> builder.connectString("localhost:notaport"))
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOfSatisfying(DistributeLockConfigurationException.class, (ex) -> {
					String description = ex.getDescription();
					assertQuoted(description.substring(0, description.indexOf("cannot use: ") + 12));
					assertQuoted(
							"..." + description.substring(description.indexOf(" A CuratorFrameworkBuilder")) + "`");
				}));
	}

	/**
	 * Asserts that the page quotes the startup failure's description up to {@code end}.
	 */
	private static void assertStartupFailureQuotedUpTo(ApplicationContextRunner contextRunner, String end) {
		contextRunner.run((context) -> assertThat(context.getStartupFailure()).rootCause()
			.isInstanceOfSatisfying(DistributeLockConfigurationException.class, (ex) -> {
				String description = ex.getDescription();
				assertThat(description).contains(end);
				assertQuoted(description.substring(0, description.indexOf(end) + end.length()));
			}));
	}

	private static void assertStartupFailureQuoted(ApplicationContextRunner contextRunner) {
		contextRunner.run((context) -> assertThat(context.getStartupFailure()).rootCause()
			.isInstanceOfSatisfying(DistributeLockConfigurationException.class,
					(ex) -> assertQuoted(ex.getDescription().replace("x".repeat(57), "x"))));
	}

	private static void assertQuoted(String message) {
		assertThat(page).as("%s quotes the message", PAGE).contains("`" + message);
	}

	static class BadJobs {

		@Lockable(key = "negative", minHoldMs = -1)
		void negative() {
		}

		@Lockable(key = "beyond", minHoldMs = 60_000, timeoutMs = 10_000)
		void beyondLease() {
		}

		@Lockable(key = "int", onBusy = Lockable.OnBusy.SKIP)
		int skippingInt() {
			return 1;
		}

		@Scheduled(fixedRate = 1000)
		@Lockable(key = "boolean")
		boolean scheduledBoolean() {
			return true;
		}

		@Scheduled(fixedRate = 60_000)
		@Lockable(key = "rate", minHoldMs = 60_000)
		void minimumHoldAsLongAsTheRate() {
		}

	}

	/** A store that answers or not, as the test says, with a fixed reason. */
	static class StubBackend implements LockBackend, LockStoreProbe {

		volatile boolean down;

		@Override
		public String name() {
			return "redis";
		}

		@Override
		public void probe() {
			if (this.down) {
				throw new IllegalStateException("<reason>");
			}
		}

		@Override
		public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
			throw new UnsupportedOperationException();
		}

		@Override
		public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
			throw new UnsupportedOperationException();
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			throw new UnsupportedOperationException();
		}

		@Override
		public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
			throw new UnsupportedOperationException();
		}

	}

}
