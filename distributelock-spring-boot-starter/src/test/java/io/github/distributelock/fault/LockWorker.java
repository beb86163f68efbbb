package io.github.distributelock.fault;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * A separate JVM that takes locks, started by the fault tests with {@link WorkerProcess}.
 * <ul>
 * <li>{@code mode=loop}: threads that each repeat acquire, read a shared counter file,
 * write it plus one, release; every critical section is appended to the log file.</li>
 * <li>{@code mode=hold}: takes the lock once, prints {@code ACQUIRED <token> <nanoTime>}
 * (when the attempt began), and waits for a line on standard input; then prints whether
 * it still holds the lock, tries a fenced write, releases, and prints the outcome. With
 * {@code reportRenewals=true} it also prints {@code RENEWED <nanoTime>} when each renewal
 * the store confirmed was sent.</li>
 * </ul>
 * Arguments are {@code name=value} pairs; the backend is built by {@link WorkerBackends}.
 */
public final class LockWorker {

	private LockWorker() {
	}

	public static void main(String[] arguments) {
		try {
			run(arguments);
		}
		catch (Throwable failure) {
			// Exit at once with the cause on stderr, which the test shows, whatever
			// threads are left.
			failure.printStackTrace();
			System.exit(1);
		}
		System.exit(0);
	}

	private static void run(String[] arguments) throws Exception {
		Map<String, String> options = new HashMap<>();
		for (String argument : arguments) {
			String[] pair = argument.split("=", 2);
			options.put(pair[0], pair[1]);
		}
		LockBackend backend = WorkerBackends.create(options);
		Duration watchdogLease = Duration.ofMillis(Long.parseLong(options.getOrDefault("watchdogLeaseMs", "30000")));
		PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
		boolean hold = "hold".equals(options.get("mode"));
		boolean reportRenewals = Boolean.parseBoolean(options.get("reportRenewals"));
		try (DefaultDistributeLock lock = new DefaultDistributeLock(
				reportRenewals ? new RenewalReportingBackend(backend, out) : backend, watchdogLease, true,
				LockEventListener.NONE, null)) {
			if (hold) {
				hold(lock, options, out);
			}
			else {
				loop(lock, options);
			}
		}
		finally {
			WorkerBackends.close(backend);
		}
	}

	private static void loop(DefaultDistributeLock lock, Map<String, String> options) throws Exception {
		String key = options.get("key");
		int threads = Integer.parseInt(options.get("threads"));
		int iterations = Integer.parseInt(options.get("iterations"));
		Path counter = Path.of(options.get("counter"));
		Path log = Path.of(options.get("log"));
		String name = options.get("name");
		Duration wait = Duration.ofMillis(Long.parseLong(options.getOrDefault("waitMs", "120000")));
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			loop(lock, key, threads, iterations, counter, log, name, wait, pool);
		}
		finally {
			// Its threads are not daemons: a failed run must still let the JVM exit.
			pool.shutdownNow();
		}
	}

	private static void loop(DefaultDistributeLock lock, String key, int threads, int iterations, Path counter,
			Path log, String name, Duration wait, ExecutorService pool) throws Exception {
		List<Future<List<CriticalSection>>> results = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			String worker = name + "-" + t;
			results.add(pool.submit(() -> {
				List<CriticalSection> sections = new ArrayList<>(iterations);
				for (int i = 0; i < iterations; i++) {
					LockHandle handle = lock.tryAcquire(key, wait, null).orElseThrow();
					try {
						long start = System.nanoTime();
						long read = Long.parseLong(Files.readString(counter).trim());
						Files.writeString(counter, Long.toString(read + 1));
						sections
							.add(new CriticalSection(worker, handle.fencingToken(), start, System.nanoTime(), read));
					}
					finally {
						release(handle, worker);
					}
				}
				return sections;
			}));
		}
		List<String> lines = new ArrayList<>();
		for (Future<List<CriticalSection>> result : results) {
			result.get(10, TimeUnit.MINUTES).forEach((section) -> lines.add(section.format()));
		}
		Files.write(log, lines);
	}

	/**
	 * Releases as an application would: a release the store could not take during a fault
	 * is retried in the background by the library and told to the caller, who has done
	 * its work and goes on. The tests check that the key ends free and that no two
	 * sections overlap.
	 */
	private static void release(LockHandle handle, String worker) {
		try {
			handle.close();
		}
		catch (DistributeLockException ex) {
			System.err.println(worker + ": release failed, retried in the background: " + ex.getMessage());
		}
	}

	private static void hold(DefaultDistributeLock lock, Map<String, String> options, PrintWriter out)
			throws Exception {
		String key = options.get("key");
		String leaseMs = options.get("leaseMs");
		Duration lease = (leaseMs != null) ? Duration.ofMillis(Long.parseLong(leaseMs)) : null;
		long attemptStart = System.nanoTime();
		Optional<LockHandle> acquired = lock.tryAcquire(key, Duration.ofSeconds(30), lease);
		if (acquired.isEmpty()) {
			out.println(WorkerProcess.MARK + "NOT_ACQUIRED");
			return;
		}
		LockHandle handle = acquired.get();
		// The store counts the lease from when it ran the attempt, which is later.
		out.println(WorkerProcess.MARK + "ACQUIRED " + handle.fencingToken() + " " + attemptStart);
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		in.readLine();
		String awaitLossMs = options.get("awaitLossMs");
		if (awaitLossMs != null) {
			// A resumed process hears of its loss from its first renewal or its
			// connection's state change, just after it wakes: give it that long.
			try {
				await().atMost(Duration.ofMillis(Long.parseLong(awaitLossMs))).until(() -> !handle.isHeld());
			}
			catch (ConditionTimeoutException ex) {
				// Still held: reported below.
			}
		}
		out.println(WorkerProcess.MARK + "HELD " + handle.isHeld());
		String fence = options.get("fence");
		if (fence != null) {
			out.println(WorkerProcess.MARK + "FENCED "
					+ new FileFencedResource(Path.of(fence)).write(handle.fencingToken(), "stale"));
		}
		try {
			handle.close();
			out.println(WorkerProcess.MARK + "RELEASED ok");
		}
		catch (LockLostException ex) {
			out.println(WorkerProcess.MARK + "RELEASED lost");
		}
	}

	/**
	 * Prints {@code RENEWED <nanoTime>} after each renewal the store confirmed, with the
	 * time the renewal was sent: the store extended the lease from a moment after it.
	 */
	private static final class RenewalReportingBackend extends CountingLockBackend {

		private final PrintWriter out;

		RenewalReportingBackend(LockBackend delegate, PrintWriter out) {
			super(delegate);
			this.out = out;
		}

		@Override
		public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
			long start = System.nanoTime();
			return super.renew(claim, lease).thenApply((renewed) -> {
				if (renewed) {
					this.out.println(WorkerProcess.MARK + "RENEWED " + start);
				}
				return renewed;
			});
		}

	}

}
