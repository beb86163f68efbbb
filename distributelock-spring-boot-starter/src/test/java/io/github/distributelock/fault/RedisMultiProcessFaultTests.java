package io.github.distributelock.fault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.RedisLockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion across separate JVMs on a real redis-server, and what happens when a
 * holder is killed or paused while it holds the lock.
 */
class RedisMultiProcessFaultTests {

	private static final Log logger = LogFactory.getLog(RedisMultiProcessFaultTests.class);

	private static EmbeddedRedis redis;

	private static LettuceConnectionFactory connectionFactory;

	private static StringRedisTemplate store;

	private final List<AutoCloseable> closeables = new ArrayList<>();

	@TempDir
	Path directory;

	@BeforeAll
	static void startRedis() {
		redis = EmbeddedRedis.start();
		connectionFactory = redis.newConnectionFactory();
		store = new StringRedisTemplate(connectionFactory);
	}

	@AfterAll
	static void stopRedis() throws Exception {
		try {
			connectionFactory.destroy();
		}
		finally {
			redis.close();
		}
	}

	@AfterEach
	void closeAll() throws Exception {
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			this.closeables.get(i).close();
		}
	}

	private WorkerProcess startWorker(String name, String... options) {
		List<String> arguments = new ArrayList<>(List.of("backend=redis", "redisPort=" + redis.port()));
		arguments.addAll(List.of(options));
		WorkerProcess worker = WorkerProcess.start(this.directory, name, arguments);
		this.closeables.add(worker);
		return worker;
	}

	private DefaultDistributeLock newLock() {
		RedisLockBackend backend = new RedisLockBackend(connectionFactory);
		DefaultDistributeLock lock = new DefaultDistributeLock(backend);
		this.closeables.add(backend);
		this.closeables.add(lock);
		return lock;
	}

	@Test
	void fourJvmsWithFourThreadsEachNeverOverlapAndLoseNoIncrement() throws Exception {
		Path counter = this.directory.resolve("counter");
		Files.writeString(counter, "0");
		int workers = 4;
		int threads = 4;
		int iterations = 1250;
		List<WorkerProcess> processes = new ArrayList<>();
		List<Path> logs = new ArrayList<>();
		for (int w = 0; w < workers; w++) {
			Path log = this.directory.resolve("worker-" + w + ".log");
			logs.add(log);
			processes.add(startWorker("worker-" + w, "mode=loop", "key=hot", "threads=" + threads,
					"iterations=" + iterations, "counter=" + counter, "log=" + log));
		}
		for (WorkerProcess process : processes) {
			assertThat(process.awaitExit(Duration.ofMinutes(5))).isZero();
		}
		MutualExclusionChecker checker = MutualExclusionChecker.read(logs);
		assertThat(checker.size()).isEqualTo(workers * threads * iterations);
		assertThat(checker.overlaps()).isEmpty();
		assertThat(checker.lostIncrements()).isEmpty();
		assertThat(checker.tokensOutOfOrder()).isEmpty();
		assertThat(Files.readString(counter).trim()).isEqualTo(Integer.toString(workers * threads * iterations));
		assertThat(store.hasKey("lock:hot")).isFalse();
	}

	@Test
	void killedHolderIsTakenOverWhenItsLeaseRunsOutAndNotBefore() throws Exception {
		long leaseMillis = 3000;
		WorkerProcess holder = startWorker("holder", "mode=hold", "key=crash", "watchdogLeaseMs=" + leaseMillis);
		assertThat(holder.nextLine(Duration.ofSeconds(60))).startsWith("ACQUIRED");
		holder.kill();
		long killed = System.nanoTime();
		assertThat(store.hasKey("lock:crash")).isTrue();
		DefaultDistributeLock lock = newLock();
		try (LockHandle handle = lock.tryAcquire("crash", Duration.ofSeconds(30), null).orElseThrow()) {
			long recoveryMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
			logger.info("Redis: lock of a killed holder taken over after " + recoveryMillis + " ms (lease "
					+ leaseMillis + " ms, renewed every " + leaseMillis / 3 + " ms)");
			// The last renewal came at most a third of the lease before the kill.
			assertThat(recoveryMillis).isGreaterThanOrEqualTo(leaseMillis * 2 / 3 - 100)
				.isLessThanOrEqualTo(leaseMillis + 2000);
		}
	}

	@Test
	void pausedHolderLosesTheLockCannotReleaseTheNextHoldersAndItsStaleWriteIsFenced() throws Exception {
		Path fence = this.directory.resolve("fenced-resource");
		WorkerProcess holder = startWorker("paused", "mode=hold", "key=paused", "watchdogLeaseMs=1500",
				"fence=" + fence);
		String acquired = holder.nextLine(Duration.ofSeconds(60));
		assertThat(acquired).startsWith("ACQUIRED");
		long staleToken = Long.parseLong(acquired.substring("ACQUIRED ".length()));
		holder.pause();
		DefaultDistributeLock lock = newLock();
		try (LockHandle handle = lock.tryAcquire("paused", Duration.ofSeconds(30), null).orElseThrow()) {
			assertThat(handle.fencingToken()).isGreaterThan(staleToken);
			assertThat(new FileFencedResource(fence).write(handle.fencingToken(), "fresh")).isTrue();
			holder.resume();
			holder.send("go");
			assertThat(holder.nextLine(Duration.ofSeconds(30))).isEqualTo("HELD false");
			assertThat(holder.nextLine(Duration.ofSeconds(30))).isEqualTo("FENCED false");
			assertThat(holder.nextLine(Duration.ofSeconds(30))).isEqualTo("RELEASED lost");
			assertThat(handle.isHeld()).isTrue();
			assertThat(store.hasKey("lock:paused")).isTrue();
		}
		assertThat(Files.readString(fence)).endsWith("fresh");
	}

}
