package io.github.distributelock.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.fault.MutualExclusionChecker.Gap;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Worker JVMs taking one hot key on a 3-server ZooKeeper ensemble whose leader is killed
 * while they run: the ensemble elects a new leader, the workers' sessions survive, and no
 * two critical sections overlap and no increment is lost. The time the lock went unused
 * around the kill is measured.
 */
class ZooKeeperLeaderLossFaultTests {

	private static final Log logger = LogFactory.getLog(ZooKeeperLeaderLossFaultTests.class);

	/**
	 * The workers' session: the longest the servers grant (20 ticks of 1 s), as in
	 * {@code ZooKeeperLockBackendFaultTests}, so that a slow reconnection on a loaded
	 * machine does not expire it.
	 */
	private static final long SESSION_TIMEOUT_MILLIS = 20_000;

	private static final int WORKERS = 3;

	private static final int THREADS = 2;

	private static final int ITERATIONS = 200;

	/** How many sections run before the leader is killed. */
	private static final int SECTIONS_BEFORE_KILL = 300;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@TempDir
	Path directory;

	private <T extends AutoCloseable> T closeAfter(T closeable) {
		return this.closeables.add(closeable);
	}

	@Test
	void workerJvmsStayExclusiveAndLoseNoIncrementWhenTheLeaderIsKilledMidRun() throws Exception {
		// An ensemble of its own, as the test kills its leader.
		TestingCluster cluster = closeAfter(EmbeddedZooKeeper.startCluster(3));
		Path counter = this.directory.resolve("counter");
		Files.writeString(counter, "0");
		List<WorkerProcess> processes = new ArrayList<>();
		List<Path> logs = new ArrayList<>();
		for (int w = 0; w < WORKERS; w++) {
			String name = "worker-" + w;
			Path log = this.directory.resolve(name + ".log");
			logs.add(log);
			processes.add(closeAfter(WorkerProcess.start(this.directory, name,
					List.of("backend=zookeeper", "zkConnect=" + cluster.getConnectString(),
							"sessionTimeoutMs=" + SESSION_TIMEOUT_MILLIS, "mode=loop", "key=hot", "threads=" + THREADS,
							"iterations=" + ITERATIONS, "counter=" + counter, "log=" + log))));
		}
		InstanceSpec leader = await().atMost(Duration.ofSeconds(10))
			.until(() -> cluster.getInstances().stream().filter(EmbeddedZooKeeper::isLeader).findFirst().orElse(null),
					(spec) -> spec != null);
		// Mid-run: the workers are taking the lock when the leader goes.
		await().atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(10))
			.ignoreExceptions()
			.until(() -> Long.parseLong(Files.readString(counter).trim()) >= SECTIONS_BEFORE_KILL);
		long killed = System.nanoTime();
		assertThat(cluster.killServer(leader)).isTrue();
		logger.info("ZooKeeper ensemble: leader " + leader.getServerId() + " killed after "
				+ Files.readString(counter).trim() + " critical sections");
		for (int w = 0; w < WORKERS; w++) {
			String name = "worker-" + w;
			assertThat(processes.get(w).awaitExit(Duration.ofMinutes(2))).as(() -> errorOutput(name)).isZero();
		}

		MutualExclusionChecker checker = MutualExclusionChecker.read(logs);
		int total = WORKERS * THREADS * ITERATIONS;
		assertThat(checker.size()).isEqualTo(total);
		assertThat(checker.overlaps()).isEmpty();
		assertThat(checker.lostIncrements()).isEmpty();
		assertThat(checker.tokensOutOfOrder()).isEmpty();
		assertThat(Files.readString(counter).trim()).isEqualTo(Integer.toString(total));
		List<Gap> gaps = checker.gaps();
		Gap beforeKill = longest(gaps.stream().filter((gap) -> gap.after().startNanos() < killed).toList());
		List<Gap> afterKill = gaps.stream().filter((gap) -> gap.after().startNanos() >= killed).toList();
		assertThat(afterKill).as("critical sections after the kill").isNotEmpty();
		Gap window = longest(afterKill);
		logger.info("ZooKeeper ensemble: " + afterKill.size() + " of " + total
				+ " critical sections started after the leader was killed; the lock went unused for at most "
				+ millis(window.nanos()) + " ms from the kill on (from " + millis(window.before().endNanos() - killed)
				+ " to " + millis(window.after().startNanos() - killed)
				+ " ms after the kill); longest gap before the kill: " + millis(beforeKill.nanos()) + " ms");
		try (CuratorFramework client = EmbeddedZooKeeper.newClient(cluster.getConnectString(),
				Duration.ofSeconds(10))) {
			assertThat(client.checkExists().forPath(ZooKeeperLockBackend.DEFAULT_ROOT + "/hot")).isNull();
		}
	}

	private static Gap longest(List<Gap> gaps) {
		return gaps.stream().max(Comparator.comparingLong(Gap::nanos)).orElseThrow();
	}

	private static long millis(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(nanos);
	}

	private String errorOutput(String worker) {
		try {
			return worker + " exited with an error:\n" + Files.readString(this.directory.resolve(worker + ".err"));
		}
		catch (IOException ex) {
			return worker + " exited with an error, and its output could not be read: " + ex;
		}
	}

}
