package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
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
 * PostgreSQL, by default, until it ends; on MariaDB and MySQL, 50 s. H2 is bounded by its
 * own lock timeout instead. A caller with less time left than the statement timeout has
 * its wait for the row bounded by its deadline instead, on every database but MySQL
 * ({@link JdbcRowLockWaitDeadlineTests}).
 */
@ExtendWith(OutputCaptureExtension.class)
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
		JdbcLockBackend backend;
		try (HikariDataSource stalledPool = database.newDataSource();
				HikariDataSource pool = database.newDataSource();
				DefaultDistributeLock lock = new DefaultDistributeLock(backend = backend(pool))) {
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
				if (!database.dialect().equals("mysql")) {
					// The wait for the row is bounded by the caller's deadline, shorter
					// than the statement timeout (JdbcRowLockWaitDeadlineTests); on H2 by
					// its own LOCK_TIMEOUT too. The attempt is answered as a key held by
					// another.
					assertThat(call.get(HANG_SECONDS, TimeUnit.SECONDS)).isEmpty();
				}
				else {
					assertThatExceptionOfType(ExecutionException.class)
						.isThrownBy(() -> call.get(HANG_SECONDS, TimeUnit.SECONDS))
						.havingCause()
						.isInstanceOf(DistributeLockException.class)
						.withMessageContaining(key)
						.havingCause()
						.isInstanceOf(QueryTimeoutException.class)
						.withMessageContaining("statement timeout of 1 s (distributelock.jdbc.statement-timeout)");
				}
				if (!database.dialect().equals("h2")) {
					// A statement no caller's deadline bounds (a hold's renewal and
					// release, or a backend called without a deadline) is ended by the
					// statement timeout.
					FutureTask<AcquireResult> attempt = new FutureTask<>(
							() -> Backends.tryAcquire(backend, key, "no-deadline", Duration.ofSeconds(30)));
					new Thread(attempt, "attempt-blocked-by-a-stalled-transaction").start();
					assertThatExceptionOfType(ExecutionException.class)
						.isThrownBy(() -> attempt.get(HANG_SECONDS, TimeUnit.SECONDS))
						.havingCause()
						.isInstanceOf(QueryTimeoutException.class)
						.withMessageContaining("statement timeout of 1 s (distributelock.jdbc.statement-timeout)");
				}
				stalled.rollback();
			}
			// The attempt that failed is given back in the background once the row is
			// free.
			await().atMost(Duration.ofSeconds(HANG_SECONDS)).until(() -> !database.isLocked(key));
			assertThat(lock.tryAcquire(key, Duration.ofSeconds(5), null)).hasValueSatisfying(LockHandle::close);
		}
	}

	@OnEachDatabase
	void statementTimeoutIsRoundedUpToWholeSecondsAndANegativeOneIsRefused(JdbcTestDatabase database) throws Exception {
		try (HikariDataSource pool = database.newDataSource(); JdbcLockBackend backend = new JdbcLockBackend(pool)) {
			assertThat(backend.statementTimeout()).isEqualTo(JdbcLockBackend.Defaults.STATEMENT_TIMEOUT);
			backend.setStatementTimeout(Duration.ofMillis(1500));
			assertThat(backend.statementTimeout()).isEqualTo(Duration.ofSeconds(2));
			// Longer than an int of seconds can say, and than MySQL's driver can count in
			// milliseconds.
			backend.setStatementTimeout(Duration.ofDays(365L * 100));
			assertThat(backend.statementTimeout()).isEqualTo(Duration.ofDays(365L * 100));
			String key = "long-statement-timeout." + System.nanoTime();
			assertThat(Backends.tryAcquire(backend, key, "owner", Duration.ofSeconds(5)).acquired()).isTrue();
			assertThat(Backends.release(backend, key, "owner")).isTrue();
			assertThatIllegalArgumentException().isThrownBy(() -> backend.setStatementTimeout(Duration.ofMillis(-1)))
				.withMessageContaining("statement timeout must not be negative");
		}
	}

	/**
	 * Fencing tokens stay in the order of acquisition only if no statement can stall for
	 * a whole released-row retention (docs/backends/jdbc.md), which a timeout of 0 or one
	 * not shorter than the retention allows.
	 */
	@OnEachDatabase
	void statementTimeoutThatLetsAStatementOutstayTheReleasedRowRetentionIsWarnedOf(JdbcTestDatabase database,
			CapturedOutput output) {
		String warning = "not shorter than the released-row retention (distributelock.jdbc.released-row-retention)";
		try (HikariDataSource pool = database.newDataSource();
				JdbcLockBackend backend = new JdbcLockBackend(pool, JdbcLockBackend.DEFAULT_TABLE_NAME, null,
						Clock.systemUTC(), Duration.ofSeconds(5))) {
			backend.setStatementTimeout(Duration.ofSeconds(4));
			assertThat(output.getAll()).doesNotContain(warning);
			backend.setStatementTimeout(Duration.ofSeconds(5));
			if (database.dialect().equals("h2")) {
				// H2 ends every wait for a row lock at its own lock timeout (2 s).
				backend.setStatementTimeout(Duration.ZERO);
				assertThat(output.getAll()).doesNotContain(warning);
				return;
			}
			assertThat(output.getAll()).contains("statement-timeout) is 5 s, " + warning + " of 5 s");
			backend.setStatementTimeout(Duration.ZERO);
			assertThat(output.getAll()).contains("statement-timeout) is 0, no bound, " + warning + " of 5 s");
		}
	}

	private static JdbcLockBackend backend(HikariDataSource pool) {
		JdbcLockBackend backend = new JdbcLockBackend(pool);
		backend.setStatementTimeout(STATEMENT_TIMEOUT);
		return backend;
	}

}
