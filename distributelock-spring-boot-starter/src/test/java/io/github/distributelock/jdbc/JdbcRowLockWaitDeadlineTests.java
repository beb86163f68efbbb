package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * A transaction of another client that keeps the key's row locked (its client stalled, or
 * it is an application's own transaction on the lock table) keeps a lock statement
 * waiting. A caller must still have its answer by its deadline, give or take one store
 * round trip: the wait for the row is bounded by the time the caller has left, not by the
 * statement timeout (10 s) or H2's {@code LOCK_TIMEOUT} (2 s). A caller refused so took
 * nothing, and a fair or write caller that gives up leaves nothing in the queue once the
 * row is free again.
 */
class JdbcRowLockWaitDeadlineTests {

	/** One store round trip and then some, on a loaded machine. */
	private static final Duration ROUND_TRIP = Duration.ofSeconds(1);

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");

	@OnEachDatabase
	void callersOnARowLockedByAnotherTransactionAnswerByTheirDeadline(JdbcTestDatabase database) throws Exception {
		assumeBoundedInTheStatement(database);
		String key = "row-lock-wait." + System.nanoTime();
		try (HikariDataSource stalledPool = database.newDataSource();
				HikariDataSource pool = database.newDataSource();
				DefaultDistributeLock lock = new DefaultDistributeLock(new JdbcLockBackend(pool))) {
			// The key's row, free.
			lock.tryAcquire(key, Duration.ZERO, null).orElseThrow().close();
			try (Connection stalled = stalledPool.getConnection()) {
				stalled.setAutoCommit(false);
				try {
					lockRow(stalled, key);
					assertRefusedInTime(database, lock, LockRequest.of(key), Duration.ZERO, 1);
					assertRefusedInTime(database, lock, LockRequest.of(key), Duration.ofMillis(300), 1);
					// A fair or write caller that gives up also leaves the queue, which
					// waits for the row once more.
					assertRefusedInTime(database, lock, LockRequest.of(key).withFair(true), Duration.ofMillis(300), 2);
					assertRefusedInTime(database, lock, LockRequest.of(key).withMode(LockMode.WRITE),
							Duration.ofMillis(300), 2);
					assertRefusedInTime(database, lock, LockRequest.of(key).withMode(LockMode.READ), Duration.ZERO, 1);
					assertRefusedInTime(database, lock, LockRequest.of(key).withPermits(2), Duration.ZERO, 1);
					// The bound is on the wait for another transaction's row only.
					String free = key + ".free";
					assertThat(lock.tryAcquire(LockRequest.of(free).withWaitTime(Duration.ZERO)))
						.hasValueSatisfying(LockHandle::close);
					assertThat(lock.tryAcquire(LockRequest.of(free).withMode(LockMode.READ)))
						.hasValueSatisfying(LockHandle::close);
				}
				finally {
					stalled.rollback();
				}
			}
			assertNothingLeft(database, key);
			assertThat(lock.tryAcquire(LockRequest.of(key).withMode(LockMode.WRITE).withWaitTime(Duration.ZERO)))
				.hasValueSatisfying(LockHandle::close);
		}
	}

	/**
	 * A writer queued behind a reader gives up while another transaction locks the key's
	 * row: its leave of the queue, which locks that row first, is bounded as an attempt
	 * is, fails, and is retried in the background until the row is free, so that it never
	 * holds up the queue. (A fair waiter's leave does not wait for a row it does not own
	 * on PostgreSQL and H2.)
	 */
	@OnEachDatabase
	void aQueuedWriterGivingUpOnALockedRowLeavesTheQueueOnceTheRowIsFree(JdbcTestDatabase database) throws Exception {
		assumeBoundedInTheStatement(database);
		String key = "row-lock-wait-queued." + System.nanoTime();
		Duration wait = Duration.ofMillis(1500);
		try (HikariDataSource stalledPool = database.newDataSource();
				HikariDataSource pool = database.newDataSource();
				DefaultDistributeLock lock = new DefaultDistributeLock(new JdbcLockBackend(pool))) {
			LockHandle holder = lock
				.tryAcquire(LockRequest.of(key).withMode(LockMode.READ).withLeaseTime(Duration.ofSeconds(30)))
				.orElseThrow();
			try (Connection stalled = stalledPool.getConnection()) {
				stalled.setAutoCommit(false);
				try {
					long start = System.nanoTime();
					CompletableFuture<Optional<LockHandle>> waiter = lock
						.tryAcquireAsync(LockRequest.of(key).withMode(LockMode.WRITE).withWaitTime(wait));
					await().atMost(Duration.ofSeconds(5)).until(() -> rows(database, "distributelock_q", key) == 1);
					lockRow(stalled, key);
					Duration allowed = allowed(database, wait, 1);
					assertThat(waiter.get(allowed.toMillis() + 5_000, TimeUnit.MILLISECONDS)).isEmpty();
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(allowed);
					assertThat(rows(database, "distributelock_q", key)).as("queued while the row is locked").isOne();
				}
				finally {
					stalled.rollback();
				}
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> rows(database, "distributelock_q", key) == 0);
			holder.close();
			assertNothingLeft(database, key);
		}
	}

	/**
	 * PostgreSQL's bound is a {@code lock_timeout} set for the operation's transaction
	 * alone: the pooled connection goes back with its own.
	 */
	@Test
	void postgresLockTimeoutEndsWithTheBoundedOperation() throws Exception {
		String key = "row-lock-wait-setting." + System.nanoTime();
		try (HikariDataSource pool = databases.get("postgresql").newDataSource();
				Connection connection = pool.getConnection()) {
			JdbcLockRepository repository = new JdbcLockRepository(new SingleConnectionDataSource(connection, true),
					JdbcLockDialect.named("postgresql"), JdbcLockBackend.DEFAULT_TABLE_NAME);
			JdbcLockKinds kinds = new JdbcLockKinds(repository, JdbcLockKinds.WAITER_LEASE);
			assertThat(repository.acquire(new Claim(key, "plain").until(soon()), 30_000).acquired()).isTrue();
			assertThat(lockTimeout(connection)).isEqualTo("0");
			Claim reader = new Claim(key + ".rw", "reader", null, LockKind.READ).until(soon());
			assertThat(kinds.acquire(reader, 30_000).acquired()).isTrue();
			assertThat(lockTimeout(connection)).isEqualTo("0");
			Claim writer = new Claim(key + ".rw", "writer", null, LockKind.WRITE).until(soon());
			assertThat(kinds.acquire(writer, 30_000).acquired()).isFalse();
			assertThat(kinds.release(writer, null)).isFalse();
			assertThat(lockTimeout(connection)).isEqualTo("0");
		}
	}

	/**
	 * PostgreSQL's {@code lock_timeout} holds at most 2^31 - 1 ms (about 24.8 days): a
	 * caller with more time left than that, under a statement timeout that does not bound
	 * it first (0, or longer), runs the plain statement, as a caller with more time left
	 * than the statement timeout does.
	 */
	@Test
	void postgresCallersWithMoreTimeLeftThanALockTimeoutHoldsTakeAFreeKey() throws Exception {
		String key = "row-lock-wait-long." + System.nanoTime();
		Deadline months = Deadline.after(Duration.ofDays(60));
		try (HikariDataSource pool = databases.get("postgresql").newDataSource();
				JdbcLockBackend backend = new JdbcLockBackend(pool)) {
			for (Duration timeout : List.of(Duration.ZERO, Duration.ofDays(365))) {
				backend.setStatementTimeout(timeout);
				for (LockKind kind : List.of(LockKind.EXCLUSIVE, LockKind.FAIR, LockKind.READ)) {
					Claim claim = new Claim(key + "." + kind.tag(), "owner", null, kind).until(months);
					assertThat(Backends.join(backend.tryAcquire(claim, Duration.ofSeconds(30))).acquired())
						.as("a %s attempt under a statement timeout of %s", kind.tag(), timeout)
						.isTrue();
					assertThat(Backends.join(backend.release(claim.until(months)))).isTrue();
				}
			}
		}
	}

	private static Deadline soon() {
		return Deadline.after(Duration.ofMillis(300));
	}

	private static String lockTimeout(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SHOW lock_timeout")) {
			assertThat(rs.next()).isTrue();
			return rs.getString(1);
		}
	}

	/**
	 * MySQL sets its lock-wait timeout for a whole session only (8.0.12 refuses the hint
	 * SET_VAR(innodb_lock_wait_timeout=n)), so its statements wait for a row as long as
	 * the statement timeout lets them (JdbcRowLockWaits).
	 */
	private static void assumeBoundedInTheStatement(JdbcTestDatabase database) {
		assumeFalse("mysql".equals(database.dialect()),
				"MySQL cannot bound a statement's lock wait inside the statement; the statement timeout bounds it");
	}

	private static void assertRefusedInTime(JdbcTestDatabase database, DefaultDistributeLock lock, LockRequest request,
			Duration wait, int rowWaits) throws InterruptedException {
		long start = System.nanoTime();
		Optional<LockHandle> handle = lock.tryAcquire(request.withWaitTime(wait));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		handle.ifPresent(LockHandle::close);
		assertThat(handle).as(request + " acquired").isEmpty();
		assertThat(took).as(request + " answered after").isLessThan(allowed(database, wait, rowWaits));
	}

	/**
	 * The wait, one round trip, and per wait for the row the database's granularity:
	 * MariaDB counts its lock wait in whole seconds.
	 */
	private static Duration allowed(JdbcTestDatabase database, Duration wait, int rowWaits) {
		Duration granularity = "mariadb".equals(database.dialect()) ? Duration.ofSeconds(1) : Duration.ZERO;
		return wait.plus(ROUND_TRIP).plus(granularity.multipliedBy(rowWaits));
	}

	private static void lockRow(Connection connection, String key) throws SQLException {
		try (PreparedStatement update = connection
			.prepareStatement("UPDATE distributelock SET owner = owner WHERE lock_key = ?")) {
			update.setString(1, key);
			assertThat(update.executeUpdate()).isOne();
		}
	}

	private static void assertNothingLeft(JdbcTestDatabase database, String key) {
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			assertThat(database.isLocked(key)).as("locked").isFalse();
			assertThat(rows(database, "distributelock_q", key)).as("queued").isZero();
			assertThat(rows(database, "distributelock_h", key)).as("readers and writers").isZero();
			assertThat(rows(database, "distributelock_p", key)).as("permit holders").isZero();
		});
	}

	private static int rows(JdbcTestDatabase database, String table, String key) {
		Integer rows = database.jdbcTemplate()
			.queryForObject("SELECT COUNT(*) FROM " + table + " WHERE lock_key = ?", Integer.class, key);
		return (rows != null) ? rows : 0;
	}

}
