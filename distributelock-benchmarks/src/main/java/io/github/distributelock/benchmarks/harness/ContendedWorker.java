package io.github.distributelock.benchmarks.harness;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LockLibrary;

/**
 * One JVM of a contended run: its threads take and release one key as fast as they can
 * until the run ends, counting acquisitions in the measured window and timing each
 * hand-off from the previous holder's release (taken just before it calls unlock) to this
 * holder's acquire (just after lock returns). Started by {@link ContendedHarness}.
 * <p>
 * Arguments: library, key, threads, shared board file, worker index, warm-up ms, measured
 * ms, result file.
 */
public final class ContendedWorker {

	/**
	 * The longest single wait: a thread still waiting when the run ends gives up then.
	 */
	private static final Duration WAIT = Duration.ofSeconds(2);

	private static final int WARMUP_CYCLES = 50;

	private ContendedWorker() {
	}

	public static void main(String[] args) throws Exception {
		String library = args[0];
		String key = args[1];
		int threads = Integer.parseInt(args[2]);
		SharedBoard board = SharedBoard.open(Path.of(args[3]));
		int worker = Integer.parseInt(args[4]);
		long warmup = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
		long measured = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[6]));
		Path result = Path.of(args[7]);
		try (LockLibrary lock = Libraries.create(library, Endpoints.fromSystemProperties())) {
			// Connections and scripts are set up lazily by some clients: not in the run.
			for (int i = 0; i < WARMUP_CYCLES; i++) {
				lock.lockAndUnlock(key + ".warmup." + worker);
			}
			board.ready(worker);
			long start = awaitStart(board);
			long measureFrom = start + warmup;
			long end = measureFrom + measured;
			Counters counters = new Counters();
			List<Thread> running = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				long holder = worker * 1000L + i + 1;
				Thread thread = new Thread(() -> loop(lock, key, board, holder, measureFrom, end, counters),
						"contender-" + holder);
				thread.start();
				running.add(thread);
			}
			// The process's CPU time over the measured window: what the library costs the
			// machine per acquisition, which decides how it fares on a busy machine.
			LockSupport.parkNanos(measureFrom - System.nanoTime());
			long cpuFrom = processCpuNanos();
			LockSupport.parkNanos(end - System.nanoTime());
			counters.cpuNanos = processCpuNanos() - cpuFrom;
			for (Thread thread : running) {
				thread.join(TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()) + 2 * WAIT.toMillis() + 10_000);
			}
			counters.write(result);
		}
		// Some clients leave non-daemon threads behind.
		System.exit(0);
	}

	private static long processCpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	private static long awaitStart(SharedBoard board) throws InterruptedException {
		long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
		long start;
		while ((start = board.start()) == 0) {
			if (System.nanoTime() - giveUp > 0) {
				throw new IllegalStateException("The harness never started the run");
			}
			// The board is a file mapped by other processes: nothing notifies across
			// JVMs, so it is polled until the start, which is then spun for.
			Thread.sleep(1);
		}
		while (System.nanoTime() - start < 0) {
			Thread.onSpinWait();
		}
		return start;
	}

	private static void loop(LockLibrary lock, String key, SharedBoard board, long holder, long measureFrom, long end,
			Counters counters) {
		try {
			while (System.nanoTime() - end < 0) {
				LockLibrary.Release release = lock.lock(key, WAIT);
				long acquiredAt = System.nanoTime();
				if (release == null) {
					counters.timeouts.incrementAndGet();
					continue;
				}
				if (!board.enter(holder)) {
					counters.overlaps.incrementAndGet();
				}
				long previous = board.releasedBy();
				long releasedAt = board.releasedAt();
				if (acquiredAt - measureFrom >= 0 && acquiredAt - end < 0) {
					counters.acquisitions.incrementAndGet();
					if (previous != 0 && previous != holder) {
						counters.handOff(acquiredAt - releasedAt);
					}
				}
				board.leave(holder);
				release.release();
			}
		}
		catch (Exception ex) {
			counters.errors.incrementAndGet();
			counters.error = ex.toString();
		}
	}

	/**
	 * What the threads of this JVM counted.
	 */
	static final class Counters {

		final AtomicLong acquisitions = new AtomicLong();

		final AtomicLong timeouts = new AtomicLong();

		final AtomicLong overlaps = new AtomicLong();

		final AtomicLong errors = new AtomicLong();

		volatile String error = "";

		volatile long cpuNanos;

		private final List<Long> handOffs = new ArrayList<>();

		synchronized void handOff(long nanos) {
			this.handOffs.add(nanos);
		}

		synchronized void write(Path file) throws IOException {
			try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
				out.println(this.acquisitions.get() + " " + this.timeouts.get() + " " + this.overlaps.get() + " "
						+ this.errors.get() + " " + this.cpuNanos);
				out.println(this.error.replace('\n', ' '));
				for (long handOff : this.handOffs) {
					out.println(handOff);
				}
			}
		}

	}

}
