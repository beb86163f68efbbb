package io.github.distributelock.fault;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mutual exclusion across separate JVMs on a real store, and what happens when a holder
 * is killed or paused while it holds the lock. Each backend's subclass starts the store
 * and tells the workers how to reach it.
 */
abstract class AbstractMultiProcessFaultTests {

	private static final Log logger = LogFactory.getLog(AbstractMultiProcessFaultTests.class);

	/** How far the store's expiry may round down: Redis counts in whole milliseconds. */
	private static final long CLOCK_TOLERANCE_MILLIS = 2;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@TempDir
	Path directory;

	/** The worker arguments that select and reach the backend under test. */
	protected abstract List<String> backendArguments();

	/** A new backend on the store for this JVM's own lock; closed after the test. */
	protected abstract LockBackend newBackend() throws Exception;

	/** Whether the store itself holds the lock of {@code key}, read without the API. */
	protected abstract boolean isLocked(String key) throws Exception;

	/**
	 * How long the store keeps a lock whose holder stopped renewing it: the watchdog
	 * lease, or the ZooKeeper session timeout.
	 */
	protected abstract long leaseMillis();

	/** A name for the figures logged. */
	protected abstract String backendName();

	/**
	 * Whether the holder's watchdog renews its lease in the store; if not (ZooKeeper),
	 * the session's pings keep the lock, which the worker cannot report.
	 */
	protected boolean renewsLeases() {
		return true;
	}

	/**
	 * Whether fencing tokens always follow the order of acquisition; where they may not,
	 * they are only checked to be unique (see docs/guarantees.md).
	 */
	protected boolean tokensFollowAcquisitionOrder() {
		return true;
	}

	/** Closes {@code closeable} after the test, before what was registered earlier. */
	protected <T extends AutoCloseable> T closeAfter(T closeable) {
		return this.closeables.add(closeable);
	}

	protected WorkerProcess startWorker(String name, String... options) {
		List<String> arguments = new ArrayList<>(backendArguments());
		arguments.addAll(List.of(options));
		return closeAfter(WorkerProcess.start(this.directory, name, arguments));
	}

	protected DefaultDistributeLock newLock() throws Exception {
		LockBackend backend = newBackend();
		if (backend instanceof AutoCloseable closeable) {
			closeAfter(closeable);
		}
		return closeAfter(new DefaultDistributeLock(backend));
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
		long started = System.nanoTime();
		for (int w = 0; w < workers; w++) {
			Path log = this.directory.resolve("worker-" + w + ".log");
			logs.add(log);
			processes.add(startWorker("worker-" + w, "mode=loop", "key=hot", "threads=" + threads,
					"iterations=" + iterations, "counter=" + counter, "log=" + log));
		}
		for (WorkerProcess process : processes) {
			assertThat(process.awaitExit(Duration.ofMinutes(8))).isZero();
		}
		MutualExclusionChecker checker = MutualExclusionChecker.read(logs);
		logger.info(backendName() + ": " + checker.size() + " critical sections by " + workers + " JVMs x " + threads
				+ " threads in " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
		assertThat(checker.size()).isEqualTo(workers * threads * iterations);
		assertThat(checker.overlaps()).isEmpty();
		assertThat(checker.lostIncrements()).isEmpty();
		List<String> outOfOrder = checker.tokensOutOfOrder();
		logger
			.info(backendName() + ": " + outOfOrder.size() + " fencing tokens out of acquisition order " + outOfOrder);
		if (tokensFollowAcquisitionOrder()) {
			assertThat(outOfOrder).isEmpty();
		}
		else {
			assertThat(checker.distinctTokens()).isEqualTo(checker.size());
		}
		assertThat(Files.readString(counter).trim()).isEqualTo(Integer.toString(workers * threads * iterations));
		assertThat(isLocked("hot")).isFalse();
	}

	@Test
	void killedHolderIsTakenOverWhenItsLeaseRunsOutAndNotBefore() throws Exception {
		long leaseMillis = leaseMillis();
		WorkerProcess holder = startWorker("holder", "mode=hold", "key=crash", "reportRenewals=true");
		String acquired = holder.nextLine(Duration.ofSeconds(60));
		assertThat(acquired).startsWith("ACQUIRED");
		// The lease runs from the last time the store heard from the holder: not before
		// its acquisition began, or its last confirmed renewal was sent.
		long leaseStart = Long.parseLong(acquired.split(" ")[2]);
		if (renewsLeases()) {
			String renewed = holder.nextLine(Duration.ofMillis(leaseMillis));
			assertThat(renewed).startsWith("RENEWED");
			leaseStart = Long.parseLong(renewed.split(" ")[1]);
		}
		holder.kill();
		long killed = System.nanoTime();
		for (String line : holder.remainingLines(Duration.ofSeconds(10))) {
			if (line.startsWith("RENEWED")) {
				leaseStart = Math.max(leaseStart, Long.parseLong(line.split(" ")[1]));
			}
		}
		assertThat(isLocked("crash")).isTrue();
		DefaultDistributeLock lock = newLock();
		try (LockHandle handle = lock.tryAcquire("crash", Duration.ofSeconds(30), null).orElseThrow()) {
			long takenOver = System.nanoTime();
			long fromLeaseStart = TimeUnit.NANOSECONDS.toMillis(takenOver - leaseStart);
			long fromKill = TimeUnit.NANOSECONDS.toMillis(takenOver - killed);
			logger.info(backendName() + ": lock of a killed holder taken over " + fromKill + " ms after the kill, "
					+ fromLeaseStart + " ms after " + (renewsLeases() ? "its last renewal" : "its acquisition")
					+ " began (lease " + leaseMillis + " ms)");
			// Not before the lease ran out, counted from the holder's last word to the
			// store (Redis counts expiry in whole milliseconds); and soon after.
			assertThat(takenOver - leaseStart)
				.isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(leaseMillis - CLOCK_TOLERANCE_MILLIS));
			assertThat(fromKill).isLessThanOrEqualTo(leaseMillis + 3000);
		}
	}

	@Test
	void pausedHolderLosesTheLockCannotReleaseTheNextHoldersAndItsStaleWriteIsFenced() throws Exception {
		Path fence = this.directory.resolve("fenced-resource");
		WorkerProcess holder = startWorker("paused", "mode=hold", "key=paused", "fence=" + fence,
				"awaitLossMs=" + (leaseMillis() + 10_000));
		String acquired = holder.nextLine(Duration.ofSeconds(60));
		assertThat(acquired).startsWith("ACQUIRED");
		long staleToken = Long.parseLong(acquired.split(" ")[1]);
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
			assertThat(isLocked("paused")).isTrue();
		}
		assertThat(Files.readString(fence)).endsWith("fresh");
		assertThat(isLocked("paused")).isFalse();
	}

}
