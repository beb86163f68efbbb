package io.github.distributelock.benchmarks.harness;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.store.StoreInspector;

/**
 * One library's scale run in its own JVM: lock and unlock many distinct keys, then count
 * what the store kept and how much heap this JVM retained, both against a baseline taken
 * after a warm-up. Started by {@link ScaleHarness}.
 * <p>
 * Arguments: library, cycles, threads, result file.
 */
public final class ScaleWorker {

	private static final int WARMUP_CYCLES = 1_000;

	private ScaleWorker() {
	}

	public static void main(String[] args) throws Exception {
		String library = args[0];
		int cycles = Integer.parseInt(args[1]);
		int threads = Integer.parseInt(args[2]);
		Path result = Path.of(args[3]);
		Endpoints endpoints = Endpoints.fromSystemProperties();
		try (LockLibrary lock = Libraries.create(library, endpoints);
				StoreInspector store = new StoreInspector(endpoints)) {
			run(lock, "scale-warmup." + library + ".", WARMUP_CYCLES, threads);
			long heapBefore = retainedHeap();
			String keys = "*scale." + library + ".*";
			StoreInspector.Snapshot before = store.snapshot(keys);
			long start = System.nanoTime();
			run(lock, "scale." + library + ".", cycles, threads);
			double seconds = (System.nanoTime() - start) / 1e9;
			StoreInspector.Snapshot left = store.snapshot(keys).minus(before);
			long heapAfter = retainedHeap();
			Files.writeString(result,
					String.join(" ",
							List.of(Long.toString(cycles), Double.toString(seconds), Long.toString(left.redisKeys()),
									Long.toString(left.redisExpiring()), Long.toString(left.znodes()),
									Long.toString(left.rows()), Long.toString(heapAfter - heapBefore))));
		}
		System.exit(0);
	}

	private static void run(LockLibrary lock, String prefix, int cycles, int threads) throws Exception {
		AtomicReference<Exception> failure = new AtomicReference<>();
		List<Thread> running = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int first = t;
			Thread thread = new Thread(() -> {
				try {
					for (int i = first; i < cycles && failure.get() == null; i += threads) {
						lock.lockAndUnlock(prefix + i);
					}
				}
				catch (Exception ex) {
					failure.compareAndSet(null, ex);
				}
			});
			thread.start();
			running.add(thread);
		}
		for (Thread thread : running) {
			thread.join(TimeUnit.MINUTES.toMillis(10));
		}
		if (failure.get() != null) {
			throw failure.get();
		}
	}

	/** Heap in use after full collections: what this JVM keeps, not its garbage. */
	private static long retainedHeap() throws InterruptedException {
		long used = Long.MAX_VALUE;
		for (int i = 0; i < 3; i++) {
			System.gc();
			// System.gc() gives no signal when the collector's concurrent work is
			// done: give it a moment before reading the heap.
			Thread.sleep(200);
			used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
		}
		return used;
	}

}
