package io.github.distributelock.benchmarks.harness;

import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.library.NonBlockingLockLibrary;

/**
 * One JVM of a contended run: its threads take and release one key as fast as they can,
 * first until the JIT compilers of all the run's JVMs have settled (see
 * {@link JitWarmup}), then through the measured window, counting acquisitions in it and
 * timing each hand-off from the previous holder's release (taken just before it calls
 * unlock) to this holder's acquire (just after lock returns). Started by
 * {@link ContendedHarness}, which starts the measured window on the shared board once
 * every JVM is warm.
 * <p>
 * Arguments: library, key, threads, shared board file, worker index, least warm-up ms,
 * most warm-up ms, measured ms, result file.
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
		Duration leastWarmup = Duration.ofMillis(Long.parseLong(args[5]));
		Duration mostWarmup = Duration.ofMillis(Long.parseLong(args[6]));
		long measured = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[7]));
		Path result = Path.of(args[8]);
		try (LockLibrary lock = Libraries.create(library, Endpoints.fromSystemProperties())) {
			// Connections and scripts are set up lazily by some clients: not in the run.
			for (int i = 0; i < WARMUP_CYCLES; i++) {
				lock.lockAndUnlock(key + ".warmup." + worker);
			}
			board.ready(worker);
			awaitStart(board);
			Counters counters = new Counters();
			List<Thread> running = new ArrayList<>();
			List<CompletableFuture<Void>> subscribed = new ArrayList<>();
			for (int i = 0; i < threads; i++) {
				long holder = worker * 1000L + i + 1;
				if (lock instanceof NonBlockingLockLibrary nonBlocking) {
					subscribed.add(subscribe(nonBlocking, key, board, holder, counters));
					continue;
				}
				Thread thread = new Thread(() -> loop(lock, key, board, holder, counters), "contender-" + holder);
				thread.start();
				running.add(thread);
			}
			counters.warmupMillis = JitWarmup.await(leastWarmup, mostWarmup);
			board.warm(worker, counters.warmupMillis);
			long measureFrom = awaitMeasureFrom(board, mostWarmup.plusSeconds(60));
			long end = measureFrom + measured;
			counters.window(measureFrom, end);
			// The process's CPU time over the measured window: what the library costs the
			// machine per acquisition, which decides how it fares on a busy machine.
			parkUntil(measureFrom);
			long cpuFrom = processCpuNanos();
			parkUntil(end);
			counters.cpuNanos = processCpuNanos() - cpuFrom;
			counters.stop = true;
			for (Thread thread : running) {
				thread.join(2 * WAIT.toMillis() + 10_000);
			}
			for (CompletableFuture<Void> caller : subscribed) {
				caller.get(2 * WAIT.toMillis() + 10_000, TimeUnit.MILLISECONDS);
			}
			counters.write(result);
		}
		// Some clients leave non-daemon threads behind.
		System.exit(0);
	}

	private static void parkUntil(long nanos) {
		long left;
		while ((left = nanos - System.nanoTime()) > 0) {
			LockSupport.parkNanos(left);
		}
	}

	private static long awaitMeasureFrom(SharedBoard board, Duration limit) throws InterruptedException {
		long giveUp = System.nanoTime() + limit.toNanos();
		long measureFrom;
		while ((measureFrom = board.measureFrom()) == 0) {
			if (System.nanoTime() - giveUp > 0) {
				throw new IllegalStateException("The harness never started the measured window");
			}
			// Polled, as the start is: the harness sets it some 100 ms ahead.
			Thread.sleep(1);
		}
		return measureFrom;
	}

	private static long processCpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	private static void awaitStart(SharedBoard board) throws InterruptedException {
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
	}

	private static void loop(LockLibrary lock, String key, SharedBoard board, long holder, Counters counters) {
		try {
			while (!counters.stop) {
				LockLibrary.Release release = lock.lock(key, WAIT);
				if (release == null) {
					counters.timeouts.incrementAndGet();
					continue;
				}
				held(board, holder, counters);
				release.release();
			}
		}
		catch (Exception ex) {
			counters.failed(ex);
		}
	}

	/**
	 * One caller without a thread of its own: the library's subscription repeats the
	 * cycle, and what runs under the lock is what {@link #loop} runs.
	 */
	private static CompletableFuture<Void> subscribe(NonBlockingLockLibrary lock, String key, SharedBoard board,
			long holder, Counters counters) {
		return lock
			.repeatUnderLock(key, WAIT, () -> held(board, holder, counters), counters.timeouts::incrementAndGet,
					() -> counters.stop)
			.exceptionally((failure) -> {
				counters.failed(failure);
				return null;
			});
	}

	/** Counts an acquisition just made, then marks the lock as about to be released. */
	private static void held(SharedBoard board, long holder, Counters counters) {
		long acquiredAt = System.nanoTime();
		if (!board.enter(holder)) {
			counters.overlaps.incrementAndGet();
		}
		long previous = board.releasedBy();
		long releasedAt = board.releasedAt();
		if (counters.inWindow(acquiredAt)) {
			counters.acquisitions.incrementAndGet();
			if (previous != 0 && previous != holder) {
				// Holders are numbered worker * 1000 + caller.
				counters.handOff(acquiredAt - releasedAt, previous / 1000 != holder / 1000);
			}
		}
		board.leave(holder);
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

		void failed(Throwable failure) {
			this.errors.incrementAndGet();
			this.error = failure.toString();
		}

		volatile long cpuNanos;

		volatile boolean stop;

		volatile long warmupMillis;

		private volatile long measureFrom;

		private volatile long end;

		void window(long from, long to) {
			this.end = to;
			this.measureFrom = from;
		}

		boolean inWindow(long nanos) {
			long from = this.measureFrom;
			return from != 0 && nanos - from >= 0 && nanos - this.end < 0;
		}

		private final List<String> handOffs = new ArrayList<>();

		/**
		 * Records a hand-off; one from a holder of another JVM is marked
		 * {@link ContendedRound#ACROSS_JVMS}.
		 */
		synchronized void handOff(long nanos, boolean acrossJvms) {
			this.handOffs.add(acrossJvms ? ContendedRound.ACROSS_JVMS + nanos : Long.toString(nanos));
		}

		synchronized void write(Path file) throws IOException {
			try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
				out.println(this.acquisitions.get() + " " + this.timeouts.get() + " " + this.overlaps.get() + " "
						+ this.errors.get() + " " + this.cpuNanos + " " + this.warmupMillis);
				out.println(this.error.replace('\n', ' '));
				for (String handOff : this.handOffs) {
					out.println(handOff);
				}
			}
		}

	}

}
