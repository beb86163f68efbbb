package io.github.distributelock.benchmarks.harness;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.StoreClients;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.jdbc.JdbcLockBackend;

/**
 * One of the two JVMs of a JDBC hand-off run on PostgreSQL. In every cycle the holder
 * takes the key, waits until the waiter has started waiting for it, keeps it a random 10
 * to 50 ms (so that the release falls anywhere in a polling waiter's back-off), notes the
 * time and releases it; the waiter, woken by the release's notification or by its own
 * polling, records how long after the release it had the key, and gives it back. Both
 * JVMs use our JDBC backend with release notifications on, or both with them off. Started
 * by {@link HandOffHarness}.
 * <p>
 * Arguments: {@code notify} or {@code poll}, {@code holder} or {@code waiter}, board
 * file, warm-up cycles, measured cycles, result file (written by the waiter).
 */
public final class HandOffWorker {

	private static final Duration WAIT = Duration.ofSeconds(10);

	private HandOffWorker() {
	}

	public static void main(String[] args) throws Exception {
		boolean notify = args[0].equals("notify");
		boolean holder = args[1].equals("holder");
		HandOffBoard board = HandOffBoard.open(Path.of(args[2]));
		int warmup = Integer.parseInt(args[3]);
		int measured = Integer.parseInt(args[4]);
		Path result = Path.of(args[5]);
		String key = "handoff." + args[0];
		try (HikariDataSource pool = StoreClients.pool(Endpoints.fromSystemProperties());
				DefaultDistributeLock lock = new DefaultDistributeLock(
						new JdbcLockBackend(pool, JdbcLockBackend.DEFAULT_TABLE_NAME, null, Clock.systemUTC(),
								JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION, notify))) {
			if (holder) {
				hold(lock, key, board, warmup + measured);
			}
			else {
				awaitHandOffs(lock, key, board, warmup, measured, result);
			}
		}
		System.exit(0);
	}

	private static void hold(DefaultDistributeLock lock, String key, HandOffBoard board, int cycles) throws Exception {
		SplittableRandom random = new SplittableRandom(42);
		for (long cycle = 1; cycle <= cycles; cycle++) {
			board.awaitDone(cycle - 1);
			LockHandle held = lock.tryAcquire(key, WAIT, null).orElseThrow();
			board.held(cycle);
			board.awaitWaiting(cycle);
			LockSupport.parkNanos(random.nextLong(10_000_000, 50_000_000));
			board.releasedAt(System.nanoTime());
			held.close();
		}
	}

	private static void awaitHandOffs(DefaultDistributeLock lock, String key, HandOffBoard board, int warmup,
			int measured, Path result) throws Exception {
		int timeouts = 0;
		try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(result))) {
			for (long cycle = 1; cycle <= warmup + measured; cycle++) {
				board.awaitHeld(cycle);
				board.waiting(cycle);
				Optional<LockHandle> handle = lock.tryAcquire(key, WAIT, null);
				long acquiredAt = System.nanoTime();
				if (handle.isEmpty()) {
					timeouts++;
				}
				else {
					if (cycle > warmup) {
						out.println(acquiredAt - board.releasedAt());
					}
					handle.get().close();
				}
				board.done(cycle);
			}
			out.println("timeouts " + timeouts);
		}
	}

}
