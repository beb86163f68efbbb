package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import org.springframework.dao.QueryTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A lock call whose statement the database keeps waiting for the row lock of a
 * transaction whose client stalled (a pause, a lost network: the database keeps such a
 * transaction until it hears the client is gone) fails after the statement timeout, as
 * after any store error, instead of hanging as long as that transaction lives: on
 * PostgreSQL, by default, until it ends; on MariaDB and MySQL, 50 s.
 */
class JdbcLockBackendStatementTimeoutTests {

	private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * Far past the timeout and the wait, far short of what the databases wait by default.
	 */
	private static final long HANG_SECONDS = 20;

	@OnEachDatabase
	void callBlockedByTheRowLockOfAStalledTransactionFailsAfterTheStatementTimeout(JdbcTestDatabase database)
			throws Exception {
		String key = "stalled-transaction." + System.nanoTime();
		try (HikariDataSource stalledPool = database.newDataSource();
				HikariDataSource pool = database.newDataSource();
				DefaultDistributeLock lock = new DefaultDistributeLock(backend(pool))) {
			try (Connection stalled = stalledPool.getConnection()) {
				stalled.setAutoCommit(false);
				// The stalled client's attempt: the key's row stays locked until its
				// transaction ends.
				new JdbcLockRepository(stalledPool, JdbcLockDialect.named(database.dialect()),
						JdbcLockBackend.DEFAULT_TABLE_NAME)
					.attempt(stalled, key, "stalled-owner", 30_000L);
				FutureTask<Optional<LockHandle>> call = new FutureTask<>(
						() -> lock.tryAcquire(key, Duration.ofMillis(500), null));
				new Thread(call, "caller-blocked-by-a-stalled-transaction").start();
				assertThatExceptionOfType(ExecutionException.class)
					.isThrownBy(() -> call.get(HANG_SECONDS, TimeUnit.SECONDS))
					.havingCause()
					.isInstanceOf(DistributeLockException.class)
					.withMessageContaining(key)
					.havingCause()
					.isInstanceOf(QueryTimeoutException.class)
					.withMessageContaining("statement timeout of 1 s (distributelock.jdbc.statement-timeout)");
				stalled.rollback();
			}
			// The attempt that failed is given back in the background once the row is
			// free.
			await().atMost(Duration.ofSeconds(HANG_SECONDS)).until(() -> !database.isLocked(key));
			assertThat(lock.tryAcquire(key, Duration.ofSeconds(5), null)).hasValueSatisfying(LockHandle::close);
		}
	}

	@OnEachDatabase
	void negativeStatementTimeoutIsRefused(JdbcTestDatabase database) throws Exception {
		try (HikariDataSource pool = database.newDataSource(); JdbcLockBackend backend = new JdbcLockBackend(pool)) {
			assertThatIllegalArgumentException().isThrownBy(() -> backend.setStatementTimeout(Duration.ofMillis(-1)))
				.withMessageContaining("statement timeout must not be negative");
		}
	}

	private static JdbcLockBackend backend(HikariDataSource pool) {
		JdbcLockBackend backend = new JdbcLockBackend(pool);
		backend.setStatementTimeout(STATEMENT_TIMEOUT);
		return backend;
	}

}
