package io.github.distributelock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release frees the key's row with a lease that ends at the release's own clock, under
 * an owner that is no caller's ({@code CHAR(1)} on H2, {@code ''} elsewhere and for a
 * fair release). An attempt of another kind that began while the release was not yet
 * committed waits for the key's row and must then find the key free: a fair attempt must
 * not take the released owner for a marker of read/write locks, and a read attempt must
 * take the row under the readers' marker rather than join it. H2 fixes a transaction's
 * clock at the first statement that reads it, so these hold because the attempt's first
 * such statement comes after its row lock.
 */
class JdbcKindAttemptBehindAReleaseTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	@OnEachDatabase
	void aFairAttemptBehindAPlainReleaseTakesTheKey(JdbcTestDatabase database) throws Exception {
		assertAnAttemptBehindAReleaseTakesTheKey(database, LockKind.EXCLUSIVE, LockKind.FAIR, "attempt");
	}

	@OnEachDatabase
	void aReadAttemptBehindAPlainReleaseTakesTheKeyAsReaders(JdbcTestDatabase database) throws Exception {
		assertAnAttemptBehindAReleaseTakesTheKey(database, LockKind.EXCLUSIVE, LockKind.READ, JdbcKindMarkers.READERS);
	}

	@OnEachDatabase
	void aReadAttemptBehindAFairReleaseTakesTheKeyAsReaders(JdbcTestDatabase database) throws Exception {
		assertAnAttemptBehindAReleaseTakesTheKey(database, LockKind.FAIR, LockKind.READ, JdbcKindMarkers.READERS);
	}

	private void assertAnAttemptBehindAReleaseTakesTheKey(JdbcTestDatabase database, LockKind released,
			LockKind attempted, String keysOwner) throws Exception {
		String key = "behind-release." + System.nanoTime();
		try (HikariDataSource releasingData = database.newDataSource((config) -> config.setAutoCommit(false));
				HikariDataSource attemptingData = database.newDataSource();
				JdbcLockBackend attempting = new JdbcLockBackend(attemptingData)) {
			LockBackend.Claim attempt = new LockBackend.Claim(key, "attempt", null, attempted);
			AttemptBeforeCommit hooked = new AttemptBeforeCommit(releasingData, database,
					() -> Backends.join(attempting.tryAcquire(attempt, Duration.ofSeconds(30))));
			try (JdbcLockBackend releasing = new JdbcLockBackend(hooked)) {
				LockBackend.Claim holder = new LockBackend.Claim(key, "holder", null, released);
				assertThat(Backends.join(releasing.tryAcquire(holder, Duration.ofSeconds(30))).acquired()).isTrue();
				hooked.armed.set(true);
				assertThat(Backends.join(releasing.release(holder))).isTrue();
				CompletableFuture<AcquireResult> result = hooked.attempt.get();
				assertThat(result).as("the attempt started before the release committed").isNotNull();
				assertThat(result.get().acquired()).as("the " + attempted.tag() + " attempt behind the release")
					.isTrue();
				String holding = database.jdbcTemplate()
					.queryForObject(
							"SELECT owner FROM " + TABLE + " WHERE lock_key = ? AND expires_at > " + database.now(),
							String.class, key);
				assertThat(holding).as("the owner of the key's row").isEqualTo(keysOwner);
			}
		}
	}

	/**
	 * Once armed, starts the attempt when the release, which freed the key's row, is
	 * about to commit, and commits once the attempt waits for the key's row.
	 */
	private static final class AttemptBeforeCommit extends DelegatingDataSource {

		final AtomicBoolean armed = new AtomicBoolean();

		final AtomicReference<CompletableFuture<AcquireResult>> attempt = new AtomicReference<>();

		private final JdbcTestDatabase database;

		private final Supplier<AcquireResult> attempting;

		AttemptBeforeCommit(DataSource pool, JdbcTestDatabase database, Supplier<AcquireResult> attempting) {
			super(pool);
			this.database = database;
			this.attempting = attempting;
		}

		@Override
		public Connection getConnection() throws SQLException {
			Connection connection = super.getConnection();
			AtomicBoolean releasing = new AtomicBoolean();
			return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { Connection.class },
					(proxy, method, args) -> {
						if (method.getName().equals("prepareStatement") && this.armed.get()
								&& ((String) args[0]).contains("UPDATE " + TABLE + " SET")) {
							releasing.set(true);
						}
						if (method.getName().equals("commit") && releasing.get()
								&& this.armed.compareAndSet(true, false)) {
							CompletableFuture<AcquireResult> started = CompletableFuture.supplyAsync(this.attempting);
							this.attempt.set(started);
							await().atMost(Duration.ofSeconds(20)).until(() -> started.isDone() || lockWaits() > 0);
						}
						try {
							return method.invoke(connection, args);
						}
						catch (InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

		private int lockWaits() {
			Integer waits = this.database.jdbcTemplate().queryForObject(this.database.lockWaitsQuery(), Integer.class);
			return (waits != null) ? waits : 0;
		}

	}

}
