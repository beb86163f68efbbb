package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A holder interrupted while its release waits for the key's row lock still releases in
 * its {@code close()}, and keeps its interrupt: H2 ends a wait for a row lock that an
 * interrupt cuts short as if the lock had timed out, which failed the release (it was
 * only sent again in the background), where PostgreSQL's and MariaDB's drivers do not
 * notice the interrupt.
 */
class JdbcLockBackendInterruptedReleaseTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("h2");

	@Test
	void releaseWaitingForTheRowLockWhenItsThreadIsInterruptedStillReleases() throws Exception {
		JdbcTestDatabase database = databases.get("h2");
		for (LockRequest request : new LockRequest[] { LockRequest.of("interrupted-release." + System.nanoTime()),
				LockRequest.of("interrupted-release.fair." + System.nanoTime()).withFair(true) }) {
			try (HikariDataSource pool = database.newDataSource();
					DefaultDistributeLock lock = new DefaultDistributeLock(new JdbcLockBackend(pool));
					Connection blocker = pool.getConnection()) {
				String key = request.key();
				LockHandle held = lock.tryAcquire(request.withWaitTime(Duration.ZERO)).orElseThrow();
				blocker.setAutoCommit(false);
				lockRow(blocker, key);
				AtomicBoolean interruptKept = new AtomicBoolean();
				CompletableFuture<Void> closed = new CompletableFuture<>();
				Thread closer = new Thread(() -> {
					try {
						held.close();
						closed.complete(null);
					}
					catch (RuntimeException ex) {
						closed.completeExceptionally(ex);
					}
					finally {
						interruptKept.set(Thread.currentThread().isInterrupted());
					}
				}, "closer");
				closer.start();
				try {
					await().atMost(Duration.ofSeconds(10))
						.until(JdbcLockBackendInterruptedReleaseTests::rowLockAwaited);
					closer.interrupt();
					await().atMost(Duration.ofSeconds(10)).until(() -> closed.isDone() || !closer.isInterrupted());
				}
				finally {
					blocker.commit();
				}
				closed.get(10, TimeUnit.SECONDS);
				closer.join(10_000);
				assertThat(interruptKept).isTrue();
				assertThat(database.isLocked(key)).isFalse();
			}
		}
	}

	@Test
	void acquisitionWaitingForTheRowLockWhenItsThreadIsInterruptedThrowsInterruptedException() throws Exception {
		JdbcTestDatabase database = databases.get("h2");
		for (LockRequest request : new LockRequest[] { LockRequest.of("interrupted-acquire." + System.nanoTime()),
				LockRequest.of("interrupted-acquire.fair." + System.nanoTime()).withFair(true) }) {
			try (HikariDataSource pool = database.newDataSource();
					DefaultDistributeLock lock = new DefaultDistributeLock(new JdbcLockBackend(pool));
					Connection blocker = pool.getConnection()) {
				String key = request.key();
				// The key's row exists, free, so that the attempt waits for its row lock.
				lock.tryAcquire(request.withWaitTime(Duration.ZERO)).orElseThrow().close();
				blocker.setAutoCommit(false);
				lockRow(blocker, key);
				CompletableFuture<Object> outcome = new CompletableFuture<>();
				Thread waiter = new Thread(() -> {
					try {
						outcome.complete(lock.tryAcquire(request.withWaitTime(Duration.ofSeconds(60))));
					}
					catch (InterruptedException | RuntimeException ex) {
						outcome.complete(ex);
					}
				}, "waiter");
				waiter.start();
				try {
					await().atMost(Duration.ofSeconds(10))
						.until(JdbcLockBackendInterruptedReleaseTests::rowLockAwaited);
					waiter.interrupt();
					// While the row is still locked: the caller hears of its interrupt.
					assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
				}
				finally {
					blocker.commit();
					waiter.interrupt();
					waiter.join(10_000);
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> !database.isLocked(key));
			}
		}
	}

	private static void lockRow(Connection connection, String key) throws Exception {
		try (PreparedStatement select = connection
			.prepareStatement("SELECT lock_key FROM distributelock WHERE lock_key = ? FOR UPDATE")) {
			select.setString(1, key);
			try (ResultSet rows = select.executeQuery()) {
				assertThat(rows.next()).isTrue();
			}
		}
	}

	/**
	 * Whether a statement waits inside H2 for a row lock: on the caller's thread, or on
	 * one of the backend's.
	 */
	private static boolean rowLockAwaited() {
		return Thread.getAllStackTraces()
			.entrySet()
			.stream()
			.anyMatch((thread) -> thread.getKey().getState() == Thread.State.TIMED_WAITING
					&& Arrays.stream(thread.getValue())
						.anyMatch((frame) -> frame.getClassName().equals("org.h2.mvstore.tx.Transaction")
								&& frame.getMethodName().equals("waitForThisToEnd")));
	}

}
