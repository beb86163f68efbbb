package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With no statement timeout ({@code distributelock.jdbc.statement-timeout=0}) a lock
 * statement blocked by the row lock of a stalled transaction is ended by the database's
 * own lock-wait timeout ({@code innodb_lock_wait_timeout} on MariaDB and MySQL,
 * {@code lock_timeout} on PostgreSQL, {@code LOCK_TIMEOUT} on H2). That is one store
 * round trip past the caller's wait time, and no more: an attempt of any kind is not made
 * again once the database gave up waiting, as it would only wait as long once more.
 */
class JdbcLockBackendLockWaitTimeoutTests {

	/** The database's lock-wait timeout, set on the lock's connections. */
	private static final Duration LOCK_WAIT_TIMEOUT = Duration.ofSeconds(3);

	/**
	 * One lock-wait timeout and then some (MySQL 8.0.12 checks its lock waits once a
	 * second, so it ends them up to a second late), short of two: an attempt made three
	 * times waited three.
	 */
	private static final Duration ONE_LOCK_WAIT = LOCK_WAIT_TIMEOUT.multipliedBy(2);

	@OnEachDatabase
	void attemptBlockedByAStalledTransactionEndsAtOneLockWaitTimeout(JdbcTestDatabase database) throws Exception {
		String key = "lock-wait-timeout." + System.nanoTime();
		JdbcLockBackend backend;
		try (HikariDataSource stalledPool = database.newDataSource();
				HikariDataSource pool = database
					.newDataSource((config) -> config.setConnectionInitSql(lockWaitTimeout(database.dialect())));
				DefaultDistributeLock lock = new DefaultDistributeLock(backend = new JdbcLockBackend(pool))) {
			backend.setStatementTimeout(Duration.ZERO);
			try (Connection stalled = stalledPool.getConnection()) {
				stalled.setAutoCommit(false);
				// The stalled client's attempt: the key's row stays locked until its
				// transaction ends.
				new JdbcLockRepository(stalledPool, JdbcLockDialect.named(database.dialect()),
						JdbcLockBackend.DEFAULT_TABLE_NAME)
					.attempt(stalled, key, "stalled-owner", 30_000L);
				long start = System.nanoTime();
				Optional<LockHandle> handle = lock.tryAcquire(key, Duration.ofMillis(100), null);
				assertThat(handle).isEmpty();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ONE_LOCK_WAIT);
				// A fair or write caller also leaves the queue once it gives up,
				// which waits for the row once more (on MariaDB and MySQL, whose
				// statements lock the row they read): one attempt is measured at the
				// backend.
				for (LockKind kind : List.of(LockKind.FAIR, LockKind.WRITE, LockKind.READ, LockKind.permits(2))) {
					start = System.nanoTime();
					AcquireResult attempt = Backends.join(backend
						.tryAcquire(new Claim(key, "caller-" + kind.tag(), null, kind), Duration.ofSeconds(30)));
					assertThat(attempt.acquired()).as(kind.tag()).isFalse();
					assertThat(Duration.ofNanos(System.nanoTime() - start)).as(kind.tag()).isLessThan(ONE_LOCK_WAIT);
				}
				stalled.rollback();
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> !database.isLocked(key));
			assertThat(lock.tryAcquire(LockRequest.of(key).withMode(LockMode.READ).withWaitTime(Duration.ofSeconds(5))))
				.hasValueSatisfying(LockHandle::close);
		}
	}

	/**
	 * Readers and permit callers never queue on JDBC, and an attempt the database's
	 * lock-wait timeout ended was rolled back: refused so, such a caller has nothing in
	 * the store to leave, and must not send a release, which would wait for the row once
	 * more and keep the caller past its deadline.
	 */
	@OnEachDatabase
	void readerOrPermitCallerRefusedByTheLockWaitTimeoutSendsNoRelease(JdbcTestDatabase database) throws Exception {
		String key = "lock-wait-timeout-no-release." + System.nanoTime();
		JdbcLockBackend backend;
		CountingLockBackend counting;
		try (HikariDataSource stalledPool = database.newDataSource();
				HikariDataSource pool = database
					.newDataSource((config) -> config.setConnectionInitSql(lockWaitTimeout(database.dialect())));
				DefaultDistributeLock lock = new DefaultDistributeLock(
						counting = CountingLockBackend.of(backend = new JdbcLockBackend(pool)))) {
			backend.setStatementTimeout(Duration.ZERO);
			try (Connection stalled = stalledPool.getConnection()) {
				stalled.setAutoCommit(false);
				try {
					new JdbcLockRepository(stalledPool, JdbcLockDialect.named(database.dialect()),
							JdbcLockBackend.DEFAULT_TABLE_NAME)
						.attempt(stalled, key, "stalled-owner", 30_000L);
					assertThat(lock.tryAcquire(LockRequest.of(key).withMode(LockMode.READ))).isEmpty();
					assertThat(lock.tryAcquire(LockRequest.of(key).withPermits(2))).isEmpty();
				}
				finally {
					stalled.rollback();
				}
			}
			assertThat(counting.acquireAttempts).hasValue(2);
			assertThat(counting.releases).as("releases sent by the refused calls").hasValue(0);
			await().atMost(Duration.ofSeconds(20)).until(() -> !database.isLocked(key));
		}
	}

	private static String lockWaitTimeout(String dialect) {
		long seconds = LOCK_WAIT_TIMEOUT.toSeconds();
		return switch (dialect) {
			case "postgresql" -> "SET lock_timeout = '" + seconds + "s'";
			case "h2" -> "SET LOCK_TIMEOUT " + LOCK_WAIT_TIMEOUT.toMillis();
			default -> "SET SESSION innodb_lock_wait_timeout = " + seconds;
		};
	}

}
