package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A fair waiter that gives up while it does not hold the key deletes its row of the queue
 * without first locking the key's row on PostgreSQL and H2 (their {@code UPDATE} of the
 * fair release locks no row it does not change), so its leave can commit in the middle of
 * another operation of the key, one that holds the key's row. The queue's head leaving so
 * between its successor's read of the queue and that attempt's writes must still count as
 * if it had left after the attempt: the successor, refused while the head was ahead,
 * keeps its place and takes the key at its next attempt, and nobody else has it.
 */
class JdbcFairWaiterLeavingTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql", "h2");

	@ParameterizedTest
	@ValueSource(strings = { "postgresql", "h2" })
	void theHeadLeavingDuringItsSuccessorsAttemptLeavesTheKeyToTheSuccessor(String dialect) throws Exception {
		JdbcTestDatabase database = databases.get(dialect);
		String key = "fair-leave." + System.nanoTime();
		Claim holder = new Claim(key, "holder", null, LockKind.FAIR);
		Claim head = new Claim(key, "head", null, LockKind.FAIR);
		Claim next = new Claim(key, "next", null, LockKind.FAIR);
		AtomicReference<CompletableFuture<Boolean>> leave = new AtomicReference<>();
		AtomicBoolean readTheQueue = new AtomicBoolean();
		try (HikariDataSource pool = database.newDataSource();
				HikariDataSource nextPool = database.newDataSource();
				JdbcLockBackend backend = new JdbcLockBackend(pool)) {
			// The step runs on the successor's thread, inside its transaction, just
			// after its read of the queue (state.sql): the head's leave runs meanwhile,
			// on a connection of its own, until it is done or waits for a lock.
			BeforeStatement afterTheRead = new BeforeStatement(nextPool, (sql) -> {
				boolean after = readTheQueue.get();
				readTheQueue.compareAndSet(false, sql.contains("AS next_permit_ms"));
				return after;
			}, () -> {
				CompletableFuture<Boolean> leaving = CompletableFuture
					.supplyAsync(() -> Backends.join(backend.release(head)));
				leave.set(leaving);
				await().atMost(Duration.ofSeconds(20)).until(() -> leaving.isDone() || lockWaits(database) > 0);
			});
			try (JdbcLockBackend nextBackend = new JdbcLockBackend(afterTheRead)) {
				assertThat(Backends.join(backend.tryAcquire(holder, LEASE)).acquired()).isTrue();
				assertThat(Backends.join(backend.tryAcquire(head, LEASE)).acquired()).isFalse();
				assertThat(Backends.join(nextBackend.tryAcquire(next, LEASE)).acquired()).isFalse();
				assertThat(Backends.join(backend.release(holder))).isTrue();
				assertThat(queue(database, key)).containsExactly("head", "next");

				afterTheRead.armed.set(true);
				AcquireResult attempt = Backends.join(nextBackend.tryAcquire(next, LEASE));
				assertThat(afterTheRead.armed).as("the step ran").isFalse();
				CompletableFuture<Boolean> leaving = leave.get();
				assertThat(leaving.isDone()).as("the head's leave committed inside its successor's attempt").isTrue();
				assertThat(leaving.get()).as("the head's leave released a hold").isFalse();
				assertThat(attempt.acquired()).as("the successor's attempt, which read the head ahead of it").isFalse();
				assertThat(attempt.queued()).isTrue();
				assertThat(queue(database, key)).containsExactly("next");
				assertThat(liveOwner(database, key)).as("the key's holder").isNull();

				assertThat(Backends.join(nextBackend.tryAcquire(next, LEASE)).acquired())
					.as("the successor's next attempt")
					.isTrue();
				assertThat(liveOwner(database, key)).isEqualTo("next");
				assertThat(queue(database, key)).isEmpty();
				assertThat(Backends.join(backend.tryAcquire(head, LEASE)).acquired()).isFalse();
				assertThat(Backends.join(backend.release(head))).isFalse();
				assertThat(Backends.join(nextBackend.release(next))).isTrue();
			}
		}
	}

	private static List<String> queue(JdbcTestDatabase database, String key) {
		return database.jdbcTemplate()
			.queryForList("SELECT owner FROM " + TABLE + "_q WHERE lock_key = ? AND expires_at > " + database.now()
					+ " ORDER BY arrival", String.class, key);
	}

	private static @Nullable String liveOwner(JdbcTestDatabase database, String key) {
		List<String> owners = database.jdbcTemplate()
			.queryForList("SELECT owner FROM " + TABLE + " WHERE lock_key = ? AND expires_at > " + database.now(),
					String.class, key);
		return owners.isEmpty() ? null : owners.get(0);
	}

	private static int lockWaits(JdbcTestDatabase database) {
		Integer waits = database.jdbcTemplate().queryForObject(database.lockWaitsQuery(), Integer.class);
		return (waits != null) ? waits : 0;
	}

}
