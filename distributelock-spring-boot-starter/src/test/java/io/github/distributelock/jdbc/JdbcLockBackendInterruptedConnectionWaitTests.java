package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release whose caller is interrupted while the statement waits for a connection of the
 * pool (all of them in use) still reaches the store, and the caller's close returns
 * normally with its interrupt kept: HikariCP ends that wait at an interrupt, and the
 * release, never sent, failed the close with "Interrupted during connection acquisition"
 * (found by the interrupts-anywhere contract test on MariaDB).
 */
class JdbcLockBackendInterruptedConnectionWaitTests {

	private static final long BOUND_SECONDS = 20;

	@OnEachDatabase
	void releaseInterruptedWhileItWaitsForAPooledConnectionReachesTheStoreAndTheCloseReturns(JdbcTestDatabase database)
			throws Exception {
		for (LockRequest request : List.of(LockRequest.of("interrupted-release.plain." + System.nanoTime()),
				LockRequest.of("interrupted-release.fair." + System.nanoTime()).withFair(true))) {
			try (HikariDataSource pool = database.newDataSource((config) -> {
				config.setMaximumPoolSize(1);
				config.setMinimumIdle(1);
			}); DefaultDistributeLock lock = new DefaultDistributeLock(new JdbcLockBackend(pool))) {
				LockHandle held = lock.tryAcquire(request).orElseThrow();
				CompletableFuture<Throwable> closed = new CompletableFuture<>();
				CompletableFuture<Boolean> interruptKept = new CompletableFuture<>();
				Thread closer = new Thread(() -> {
					try {
						held.close();
						closed.complete(null);
					}
					catch (Throwable ex) {
						closed.complete(ex);
					}
					interruptKept.complete(Thread.currentThread().isInterrupted());
				}, "closer-interrupted-while-waiting-for-a-connection");
				try (Connection busy = pool.getConnection()) {
					closer.start();
					// HikariCP's wait for a connection is a timed one. H2's statements
					// run on
					// the backend's pool, never on the caller, which waits for them
					// parked.
					Thread.State waiting = database.dialect().equals("h2") ? Thread.State.WAITING
							: Thread.State.TIMED_WAITING;
					await().atMost(Duration.ofSeconds(BOUND_SECONDS)).until(() -> closer.getState() == waiting);
					closer.interrupt();
					await().atMost(Duration.ofSeconds(BOUND_SECONDS))
						.until(() -> closer.getState() == Thread.State.WAITING
								|| closer.getState() == Thread.State.TERMINATED);
				}
				assertThat(closed.get(BOUND_SECONDS, TimeUnit.SECONDS)).as(request.key()).isNull();
				assertThat(interruptKept.get(BOUND_SECONDS, TimeUnit.SECONDS)).as("interrupt kept").isTrue();
				assertThat(database.isLocked(request.key())).as(request.key()).isFalse();
			}
		}
	}

}
