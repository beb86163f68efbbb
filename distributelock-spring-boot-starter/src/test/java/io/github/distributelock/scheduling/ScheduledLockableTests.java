package io.github.distributelock.scheduling;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.LogLines;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.autoconfigure.DistributeLockObservationAutoConfiguration;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of one application on one store, each a Spring context with
 * {@code @EnableScheduling} and the same {@code @Scheduled @Lockable} {@link ReportJob},
 * the second one's clock 0.55 s behind, so its ticks come 0.55 s after the first one's:
 * without the minimum hold, both instances would run every tick (the first one's half
 * second run is over when the second one's tick comes). With it, every tick runs on
 * exactly one instance, and the other skips it quietly: one DEBUG line per skip, a
 * {@code result=skipped} count, and no error logged.
 */
@ExtendWith(OutputCaptureExtension.class)
class ScheduledLockableTests {

	private static final String CATEGORY = DefaultDistributeLock.class.getName();

	private static final LoggingSystem loggingSystem = LoggingSystem.get(ScheduledLockableTests.class.getClassLoader());

	/** Enough ticks to see both instances tick several times after both are up. */
	private static final int RUNS = 4;

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private static TestingServer zooKeeper;

	@BeforeAll
	static void startZooKeeper() throws Exception {
		zooKeeper = EmbeddedZooKeeper.startServer();
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		if (zooKeeper != null) {
			zooKeeper.close();
		}
	}

	@BeforeEach
	void logSkipsAtDebug() {
		loggingSystem.setLogLevel(CATEGORY, LogLevel.DEBUG);
	}

	@AfterEach
	void restoreLogLevel() {
		loggingSystem.setLogLevel(CATEGORY, null);
	}

	abstract static class Contract {

		/** Both instances' context, on the store under test. */
		abstract ApplicationContextRunner instance();

		@Test
		void everyTickRunsOnExactlyOneInstanceAndTheOtherSkipsQuietly(CapturedOutput output) {
			Runs runs = new Runs();
			AtomicReference<SimpleMeterRegistry> firstMeters = new AtomicReference<>();
			AtomicReference<SimpleMeterRegistry> secondMeters = new AtomicReference<>();
			instance().withBean(RunLog.class, () -> runs)
				.withPropertyValues("report.instance=first", "report.clock-behind-ms=0")
				.run((first) -> instance().withBean(RunLog.class, () -> runs)
					.withPropertyValues("report.instance=second", "report.clock-behind-ms=550")
					.run((second) -> {
						assertThat(first).hasNotFailed();
						assertThat(second).hasNotFailed();
						firstMeters.set(first.getBean(SimpleMeterRegistry.class));
						secondMeters.set(second.getBean(SimpleMeterRegistry.class));
						runs.startRecording();
						await().atMost(Duration.ofSeconds(60)).until(() -> runs.count() >= RUNS);
					}));
			List<Run> recorded = runs.list();
			Runs.assertEveryTickRanOnce(recorded);
			long skipped = ReportJobConfiguration.skipped(firstMeters.get())
					+ ReportJobConfiguration.skipped(secondMeters.get());
			// Each tick came on both instances: one ran it, the other skipped it.
			assertThat(skipped).isGreaterThanOrEqualTo(RUNS - 1);
			assertThat(LogLines.containing(output, "Skipped lock 'report.job' in ")).hasSize((int) skipped);
			assertThat(output.getAll()).doesNotContain("Unexpected error occurred in scheduled task")
				.doesNotContain("LockFailedException");
			assertThat(LogLines.containing(output, " ERROR ")).isEmpty();
		}

	}

	@Nested
	class OnRedis extends Contract {

		@Override
		ApplicationContextRunner instance() {
			return new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
						DistributeLockAutoConfiguration.class, DistributeLockObservationAutoConfiguration.class))
				.withUserConfiguration(ReportJobConfiguration.class)
				.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
						"spring.data.redis.port=" + redis.port());
		}

	}

	@Nested
	class OnZooKeeper extends Contract {

		@Override
		ApplicationContextRunner instance() {
			return new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class,
						DistributeLockObservationAutoConfiguration.class))
				.withUserConfiguration(ReportJobConfiguration.class)
				.withPropertyValues("distributelock.type=zookeeper",
						"distributelock.zookeeper.connect-string=" + zooKeeper.getConnectString());
		}

	}

	@Nested
	class OnJdbc extends Contract {

		/** One in-memory H2 database that both instances share while the test runs. */
		private final String url = "jdbc:h2:mem:scheduled-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

		@Override
		ApplicationContextRunner instance() {
			return new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
						DistributeLockAutoConfiguration.class, DistributeLockObservationAutoConfiguration.class))
				.withUserConfiguration(ReportJobConfiguration.class)
				.withPropertyValues("distributelock.type=jdbc", "spring.datasource.url=" + this.url);
		}

	}

}
