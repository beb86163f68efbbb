package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The statements a blocking caller's call still sends after the caller has left (here a
 * fair waiter's exit from the queue after an interrupt) run on the backend's own pool,
 * never on the lock service's scheduler: that scheduler's two threads also run the
 * watchdog, and a statement waiting there for a pooled connection (HikariCP's
 * {@code connectionTimeout}, 30 s by default), a row lock or a slow database held back
 * the renewals of every other lock held, which could then be lost.
 */
class JdbcLockBackendInterruptedWaiterStatementThreadTests {

	private static final long BOUND_SECONDS = 20;

	private static final String SCHEDULER_THREAD = "distributelock-watchdog";

	private static JdbcTestDatabase database;

	@BeforeAll
	static void startDatabase() {
		database = JdbcTestDatabase.start("postgresql");
	}

	@AfterAll
	static void stopDatabase() throws Exception {
		database.close();
	}

	// Repeated: a poll queued for the caller as the interrupt came was handed to the
	// scheduler before the call was ended, in about one run of eight.
	@RepeatedTest(5)
	void queueExitOfAnInterruptedFairWaiterRunsOffTheScheduler() throws Exception {
		String key = "interrupted-waiter-statements." + System.nanoTime();
		List<String> connectionThreads = new CopyOnWriteArrayList<>();
		try (HikariDataSource pool = database.newDataSource();
				DefaultDistributeLock lock = new DefaultDistributeLock(
						new JdbcLockBackend(new RecordingDataSource(pool, connectionThreads)))) {
			LockHandle held = lock.tryAcquire(LockRequest.of(key).withFair(true)).orElseThrow();
			List<String> rowsOfTheHolder = rowsOf(key);
			CompletableFuture<Throwable> ended = new CompletableFuture<>();
			Thread waiter = new Thread(() -> {
				try {
					lock.tryAcquire(LockRequest.of(key).withFair(true).withWaitTime(Duration.ofMinutes(1)));
					ended.complete(null);
				}
				catch (Throwable ex) {
					ended.complete(ex);
				}
			}, "fair-waiter-interrupted");
			waiter.start();
			// Queued in the store and waiting for its turn, parked between polls.
			await().atMost(Duration.ofSeconds(BOUND_SECONDS))
				.until(() -> connectionThreads.contains(waiter.getName()) && (waiter.getState() == Thread.State.WAITING
						|| waiter.getState() == Thread.State.TIMED_WAITING));
			connectionThreads.clear();
			waiter.interrupt();
			assertThat(ended.get(BOUND_SECONDS, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
			// The interrupted caller returns once its claim has left the queue.
			assertThat(rowsOf(key)).as("rows of the key: the holder's only").isEqualTo(rowsOfTheHolder);
			assertThat(connectionThreads).as("threads that took a connection after the interrupt")
				.isNotEmpty()
				.noneMatch((thread) -> thread.startsWith(SCHEDULER_THREAD));
			held.close();
		}
	}

	private static List<String> rowsOf(String key) {
		return database.lockedKeys().stream().filter((locked) -> locked.startsWith(key)).sorted().toList();
	}

	/** Records the thread of every statement, by the connection it takes. */
	private static final class RecordingDataSource extends DelegatingDataSource {

		private final List<String> threads;

		RecordingDataSource(HikariDataSource pool, List<String> threads) {
			super(pool);
			this.threads = threads;
		}

		@Override
		public Connection getConnection() throws SQLException {
			this.threads.add(Thread.currentThread().getName());
			return super.getConnection();
		}

	}

}
