package io.github.distributelock.jdbc;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A fair, read/write or permit attempt makes sure the key has its row in the lock table,
 * then locks it. The purge of another instance may delete a row free for longer than the
 * retention between those two statements (PostgreSQL's first statement does not lock a
 * row it finds): the attempt must not then take the key with no row in the lock table,
 * where the next attempt of any kind would take it too.
 */
class JdbcPurgeRacingKindAttemptTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	@OnEachDatabase
	void aRowPurgedBetweenTheInsertAndTheLockOfAFairAttemptIsInsertedAgain(JdbcTestDatabase database) throws Exception {
		String key = "purge-race." + System.nanoTime();
		try (HikariDataSource firstData = database.newDataSource();
				HikariDataSource secondData = database.newDataSource();
				HikariDataSource purgingData = database.newDataSource();
				JdbcLockBackend second = new JdbcLockBackend(secondData);
				JdbcLockBackend purging = new JdbcLockBackend(purgingData, TABLE, null, Clock.systemUTC(),
						Duration.ofMillis(1))) {
			// The purge runs when the attempt is about to lock the key's row.
			CompletableFuture<Integer> purged = new CompletableFuture<>();
			BeforeStatement hooked = new BeforeStatement(firstData, "FOR UPDATE",
					() -> purgeNow(purging, database, purged));
			try (JdbcLockBackend first = new JdbcLockBackend(hooked)) {
				// The key's row, free for long: released, its lease ended in 2000.
				LockBackend.Claim plain = new LockBackend.Claim(key, "plain-owner", null, LockKind.EXCLUSIVE);
				assertThat(Backends.join(second.tryAcquire(plain, Duration.ofSeconds(30))).acquired()).isTrue();
				assertThat(Backends.join(second.release(plain))).isTrue();
				Timestamp longAgo = Timestamp.valueOf("2000-01-01 00:00:00");
				database.jdbcTemplate()
					.update("UPDATE " + TABLE + " SET expires_at = ? WHERE lock_key = ?", longAgo, key);

				hooked.armed.set(true);
				assertThat(Backends
					.join(first.tryAcquire(new LockBackend.Claim(key, "first", null, LockKind.FAIR),
							Duration.ofSeconds(30)))
					.acquired()).isTrue();
				// On MariaDB and MySQL it waited for the attempt's row lock, and ends
				// after it.
				await().atMost(Duration.ofSeconds(20)).until(purged::isDone);
				assertThat(database.isLocked(key)).as("the fair holder's row is in the lock table").isTrue();
				assertThat(Backends
					.join(second.tryAcquire(new LockBackend.Claim(key, "second", null, LockKind.FAIR),
							Duration.ofSeconds(30)))
					.acquired()).as("a second fair owner while the first holds").isFalse();
				assertThat(Backends.join(second.tryAcquire(plain, Duration.ofSeconds(30))).acquired())
					.as("a plain owner while the fair owner holds")
					.isFalse();
			}
		}
	}

	/**
	 * Runs the purge of another instance until it has ended, or waits for a row lock of
	 * the attempt (MariaDB and MySQL lock the row they find at the insert).
	 */
	private static void purgeNow(JdbcLockBackend purging, JdbcTestDatabase database,
			CompletableFuture<Integer> purged) {
		CompletableFuture.supplyAsync(purging::deleteReleasedRows).whenComplete((deleted, failure) -> {
			if (failure != null) {
				purged.completeExceptionally(failure);
			}
			else {
				purged.complete(deleted);
			}
		});
		await().atMost(Duration.ofSeconds(20)).until(() -> purged.isDone() || lockWaits(database) > 0);
	}

	private static int lockWaits(JdbcTestDatabase database) {
		Integer waits = database.jdbcTemplate().queryForObject(database.lockWaitsQuery(), Integer.class);
		return (waits != null) ? waits : 0;
	}

}
