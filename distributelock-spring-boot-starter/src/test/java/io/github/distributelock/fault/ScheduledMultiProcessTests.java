package io.github.distributelock.fault;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.scheduling.Run;
import io.github.distributelock.scheduling.Runs;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two JVMs, each a Spring Boot application with the same {@code @Scheduled @Lockable}
 * {@link io.github.distributelock.scheduling.ReportJob}, on one real store, their clocks
 * in step as NTP keeps machines: both attempt every tick at about the same moment, one
 * takes the lock and the other skips, and the minimum hold keeps one that comes late (a
 * slow start, a busy machine) from running the tick again. No tick runs twice, and the
 * skipping JVM logs one DEBUG line per skip and no error.
 */
class ScheduledMultiProcessTests {

	/** Enough ticks to see both JVMs tick several times after both are up. */
	private static final int RUNS = 4;

	private static final String SKIP_LINE = "Skipped lock 'report.job' in ";

	private static EmbeddedRedis redis;

	private static TestingServer zooKeeper;

	private static EmbeddedPostgres postgres;

	@TempDir
	Path directory;

	@BeforeAll
	static void startStores() throws Exception {
		redis = EmbeddedRedis.start();
		zooKeeper = EmbeddedZooKeeper.startServer();
		postgres = EmbeddedPostgres.builder()
			.setPort(EmbeddedRedis.freePort())
			.setServerConfig("listen_addresses", "127.0.0.1")
			.start();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(postgresUrl());
		config.setUsername("postgres");
		config.setMaximumPoolSize(1);
		try (HikariDataSource dataSource = new HikariDataSource(config)) {
			// Created once here: two applications creating it at once could collide.
			new JdbcLockBackend(dataSource).createSchema();
		}
	}

	@AfterAll
	static void stopStores() throws Exception {
		try (AutoCloseable r = redis; AutoCloseable z = zooKeeper; AutoCloseable p = postgres) {
			// Each is stopped, also when another fails to stop.
		}
	}

	private static String postgresUrl() {
		return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
	}

	abstract class Contract {

		/** The application arguments that select and reach the store under test. */
		abstract List<String> storeArguments();

		@Test
		void everyTickRunsOnExactlyOneOfTwoJvmsAndTheOtherSkipsQuietly() throws Exception {
			try (WorkerProcess first = start("first"); WorkerProcess second = start("second")) {
				Output firstOutput = new Output("first", first);
				Output secondOutput = new Output("second", second);
				await().atMost(Duration.ofSeconds(120))
					.until(() -> firstOutput.read().ready().isPresent() && secondOutput.read().ready().isPresent());
				long bothReady = Math.max(firstOutput.ready().orElseThrow(), secondOutput.ready().orElseThrow());
				await().atMost(Duration.ofSeconds(60))
					.until(() -> runsSince(bothReady, firstOutput.read(), secondOutput.read()).size() >= RUNS);
				first.send("stop");
				second.send("stop");
				firstOutput.readToTheEnd();
				secondOutput.readToTheEnd();
				Runs.assertEveryTickRanOnce(runsSince(bothReady, firstOutput, secondOutput));
				long skipped = firstOutput.skipped() + secondOutput.skipped();
				// Each tick came on both: one ran it, the other skipped it.
				assertThat(skipped).isGreaterThanOrEqualTo(RUNS - 1);
				for (Output output : List.of(firstOutput, secondOutput)) {
					List<String> log = Files.readAllLines(this.logFile(output.name), StandardCharsets.UTF_8);
					assertThat(log).filteredOn((line) -> line.contains(SKIP_LINE)).hasSize((int) output.skipped());
					assertThat(log).noneMatch((line) -> line.contains(" ERROR "))
						.noneMatch((line) -> line.contains("Unexpected error occurred in scheduled task"))
						.noneMatch((line) -> line.contains("LockFailedException"));
				}
			}
		}

		private WorkerProcess start(String name) {
			List<String> arguments = new ArrayList<>(storeArguments());
			arguments.add("--report.instance=" + name);
			arguments.add("--logging.file.name=" + logFile(name));
			arguments.add("--logging.level.io.github.distributelock.core.DefaultDistributeLock=debug");
			return WorkerProcess.start(ScheduledMultiProcessTests.this.directory, name, ScheduledWorker.class,
					arguments);
		}

		private Path logFile(String name) {
			return ScheduledMultiProcessTests.this.directory.resolve(name + ".log");
		}

		private static List<Run> runsSince(long micros, Output... outputs) {
			List<Run> runs = new ArrayList<>();
			for (Output output : outputs) {
				output.runs.stream().filter((run) -> run.startMicros() >= micros).forEach(runs::add);
			}
			return runs;
		}

	}

	@Nested
	class OnRedis extends Contract {

		@Override
		List<String> storeArguments() {
			return List.of("--distributelock.type=redis", "--spring.data.redis.host=127.0.0.1",
					"--spring.data.redis.port=" + redis.port());
		}

	}

	@Nested
	class OnZooKeeper extends Contract {

		@Override
		List<String> storeArguments() {
			return List.of("--distributelock.type=zookeeper",
					"--distributelock.zookeeper.connect-string=" + zooKeeper.getConnectString());
		}

	}

	@Nested
	class OnPostgres extends Contract {

		@Override
		List<String> storeArguments() {
			return List.of("--distributelock.type=jdbc", "--spring.datasource.url=" + postgresUrl(),
					"--spring.datasource.username=postgres");
		}

	}

	/** What one worker printed so far. */
	private static final class Output {

		final String name;

		final WorkerProcess worker;

		final List<Run> runs = new ArrayList<>();

		private Long readyMicros;

		private Long skipped;

		Output(String name, WorkerProcess worker) {
			this.name = name;
			this.worker = worker;
		}

		Output read() {
			this.worker.takeLines().forEach(this::accept);
			return this;
		}

		void readToTheEnd() throws InterruptedException {
			this.worker.remainingLines(Duration.ofSeconds(60)).forEach(this::accept);
		}

		private void accept(String line) {
			if (line.startsWith("READY ")) {
				this.readyMicros = Long.parseLong(line.substring("READY ".length()));
			}
			else if (line.startsWith("STOPPED ")) {
				this.skipped = Long.parseLong(line.substring("STOPPED ".length()));
			}
			else {
				this.runs.add(Run.parse(line));
			}
		}

		Optional<Long> ready() {
			return Optional.ofNullable(this.readyMicros);
		}

		long skipped() {
			assertThat(this.skipped).as("the skipped runs the worker reported as it stopped").isNotNull();
			return this.skipped;
		}

	}

}
