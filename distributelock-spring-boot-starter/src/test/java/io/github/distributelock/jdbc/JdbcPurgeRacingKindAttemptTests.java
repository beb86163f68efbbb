package io.github.distributelock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;

import org.springframework.jdbc.datasource.DelegatingDataSource;

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
			PurgeBeforeLock hooked = new PurgeBeforeLock(firstData, purging, database);
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
				await().atMost(Duration.ofSeconds(20)).until(hooked.purged::isDone);
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
	 * Runs the purge of another instance, once armed, when the attempt is about to lock
	 * the key's row: until the purge has ended, or waits for a row lock of the attempt
	 * (MariaDB and MySQL lock the row they find at the insert).
	 */
	private static final class PurgeBeforeLock extends DelegatingDataSource {

		final AtomicBoolean armed = new AtomicBoolean();

		final CompletableFuture<Integer> purged = new CompletableFuture<>();

		private final JdbcLockBackend purging;

		private final JdbcTestDatabase database;

		PurgeBeforeLock(DataSource pool, JdbcLockBackend purging, JdbcTestDatabase database) {
			super(pool);
			this.purging = purging;
			this.database = database;
		}

		@Override
		public Connection getConnection() throws SQLException {
			Connection connection = super.getConnection();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						if (method.getName().equals("prepareStatement") && args.length == 1
								&& ((String) args[0]).contains("FOR UPDATE") && this.armed.compareAndSet(true, false)) {
							purgeNow();
						}
						try {
							return method.invoke(connection, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

		private void purgeNow() {
			CompletableFuture.supplyAsync(this.purging::deleteReleasedRows).whenComplete((deleted, failure) -> {
				if (failure != null) {
					this.purged.completeExceptionally(failure);
				}
				else {
					this.purged.complete(deleted);
				}
			});
			await().atMost(Duration.ofSeconds(20)).until(() -> this.purged.isDone() || lockWaits() > 0);
		}

		private int lockWaits() {
			Integer waits = this.database.jdbcTemplate().queryForObject(this.database.lockWaitsQuery(), Integer.class);
			return (waits != null) ? waits : 0;
		}

	}

}
