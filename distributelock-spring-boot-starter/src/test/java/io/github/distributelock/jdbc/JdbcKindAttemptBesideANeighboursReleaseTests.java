package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An attempt on a free key never waits for an operation on another key. On MariaDB and
 * MySQL, whose default isolation ({@code REPEATABLE READ}) locks the gaps of an index
 * beside the rows a statement reads or deletes, the release of a permit deleted its slot
 * and kept the gap after it locked until it committed: the attempt of the next key, whose
 * slot belongs in that gap, waited for it (and, refused by the lock-wait timeout, a
 * caller without a wait time was refused a free key). The attempts of two neighbouring
 * keys, each waiting so for the other, deadlocked.
 */
class JdbcKindAttemptBesideANeighboursReleaseTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	private static final Duration LEASE = Duration.ofSeconds(30);

	private static final LockKind TWO = LockKind.permits(2);

	@OnEachDatabase
	void anAttemptOnAFreeKeyDoesNotWaitForTheReleaseOfTheKeyBeforeIt(JdbcTestDatabase database) throws Exception {
		String prefix = "neighbour." + System.nanoTime() + ".";
		Claim neighbour = new Claim(prefix + "a", "neighbour", null, TWO);
		AtomicReference<CompletableFuture<AcquireResult>> attempt = new AtomicReference<>();
		AtomicBoolean doneInside = new AtomicBoolean();
		try (HikariDataSource pool = database.newDataSource();
				HikariDataSource neighbourPool = database.newDataSource();
				JdbcLockBackend backend = new JdbcLockBackend(pool)) {
			// The step runs on the neighbour's thread, inside its release, after it
			// deleted its slot and before it shortens the key's row: the attempt on the
			// next key runs meanwhile, on a connection of its own, until it is done or
			// waits for a lock.
			BeforeStatement beforeTheShrink = new BeforeStatement(neighbourPool, "MAX(p.expires_at)", () -> {
				Claim next = new Claim(prefix + "b", "next", null, TWO).until(Deadline.after(Duration.ZERO));
				CompletableFuture<AcquireResult> attempting = backend.tryAcquire(next, LEASE).toCompletableFuture();
				attempt.set(attempting);
				await().atMost(Duration.ofSeconds(20)).until(() -> attempting.isDone() || lockWaits(database) > 0);
				doneInside.set(attempting.isDone());
			});
			try (JdbcLockBackend neighbourBackend = new JdbcLockBackend(beforeTheShrink)) {
				assertThat(Backends.join(neighbourBackend.tryAcquire(neighbour, LEASE)).acquired()).isTrue();
				beforeTheShrink.armed.set(true);
				assertThat(Backends.join(neighbourBackend.release(neighbour))).isTrue();
				assertThat(beforeTheShrink.armed).as("the step ran").isFalse();
				AcquireResult next = attempt.get().get(30, TimeUnit.SECONDS);
				assertThat(doneInside).as("the attempt done while the release of the key before it was in flight")
					.isTrue();
				assertThat(next.acquired()).as("the attempt on a free key").isTrue();
			}
		}
	}

	/**
	 * The level applies to the transaction of the operation only: the application's next
	 * transaction on the same pooled connection runs at the session's own level.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "mariadb", "mysql" })
	void theNextTransactionOnThePooledConnectionKeepsItsIsolation(String dialect) throws Exception {
		JdbcTestDatabase database = databases.get(dialect);
		String key = "isolation." + System.nanoTime();
		try (HikariDataSource pool = database.newDataSource((config) -> config.setMaximumPoolSize(1));
				JdbcLockBackend backend = new JdbcLockBackend(pool)) {
			Claim reader = new Claim(key, "reader", null, LockKind.READ);
			assertThat(Backends.join(backend.tryAcquire(reader, LEASE)).acquired()).isTrue();
			assertThat(Backends.join(backend.release(reader))).isTrue();
			try (Connection connection = pool.getConnection()) {
				connection.setAutoCommit(false);
				try (PreparedStatement lock = connection.prepareStatement("SELECT lock_key FROM "
						+ JdbcLockBackend.DEFAULT_TABLE_NAME + " WHERE lock_key = ? FOR UPDATE");
						PreparedStatement level = connection.prepareStatement("SELECT trx_isolation_level FROM "
								+ "information_schema.INNODB_TRX WHERE trx_mysql_thread_id = CONNECTION_ID()")) {
					lock.setString(1, key);
					lock.executeQuery().close();
					try (ResultSet row = level.executeQuery()) {
						assertThat(row.next()).isTrue();
						assertThat(row.getString(1)).isEqualTo("REPEATABLE READ");
					}
				}
				finally {
					connection.rollback();
					connection.setAutoCommit(true);
				}
			}
		}
	}

	/**
	 * A server whose binary log is statement-based refuses writes at
	 * {@code READ COMMITTED} (error 1665: InnoDB logs them only as rows); the operations
	 * then run at the session's own isolation, as before, rather than fail. The tests'
	 * MySQL logs in binary, and this pool's sessions by statement.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "mysql" })
	void onAStatementBasedBinaryLogTheOperationsRunAtTheSessionsIsolation(String dialect) throws Exception {
		JdbcTestDatabase database = databases.get(dialect);
		String key = "statement-binlog." + System.nanoTime();
		try (HikariDataSource pool = database
			.newDataSource((config) -> config.setConnectionInitSql("SET SESSION binlog_format = 'STATEMENT'"));
				JdbcLockBackend backend = new JdbcLockBackend(pool)) {
			Claim reader = new Claim(key, "reader", null, LockKind.READ);
			Claim permit = new Claim(key + ".p", "permit", null, TWO);
			assertThat(Backends.join(backend.tryAcquire(reader, LEASE)).acquired()).isTrue();
			assertThat(Backends.join(backend.tryAcquire(permit, LEASE)).acquired()).isTrue();
			assertThat(Backends.join(backend.release(reader))).isTrue();
			assertThat(Backends.join(backend.release(permit))).isTrue();
		}
	}

	private static int lockWaits(JdbcTestDatabase database) {
		Integer waits = database.jdbcTemplate().queryForObject(database.lockWaitsQuery(), Integer.class);
		return (waits != null) ? waits : 0;
	}

}
