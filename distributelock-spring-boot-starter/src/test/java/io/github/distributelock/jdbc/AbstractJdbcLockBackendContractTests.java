package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.AbstractLockBackendContractTests;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The contract on one real database, plus what is particular to a lock table: the row,
 * transactions and pools in manual-commit mode. {@link JdbcLockBackendContractTests} runs
 * it on each database.
 */
abstract class AbstractJdbcLockBackendContractTests extends AbstractLockBackendContractTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	private final String dialect;

	AbstractJdbcLockBackendContractTests(String dialect) {
		this.dialect = dialect;
	}

	JdbcTestDatabase database() {
		return databases.get(this.dialect);
	}

	/**
	 * Twice the four connections of each instance's pool: callers wait for a connection
	 * as well as for the lock.
	 */
	@Override
	protected int callersPerInstance() {
		return 8;
	}

	@Override
	protected JdbcLockBackend newBackend() {
		return new JdbcLockBackend(closeAfterTest(database().newDataSource()));
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return database().isLocked(key);
	}

	@Test
	void detectsTheDialect() {
		assertThat(newBackend().dialect()).isEqualTo(database().dialect());
	}

	@Test
	void rowHoldsOwnerTokenAndALeaseOnTheDatabaseClock() throws Exception {
		DefaultDistributeLock lock = newLock();
		assertThat(lock.tryLock(key(), "owner-1", 0, 10_000)).isTrue();
		String owner = database().jdbcTemplate()
			.queryForObject("SELECT owner FROM distributelock WHERE lock_key = ?", String.class, key());
		assertThat(owner).isEqualTo("owner-1");
		assertThat(isLockedInStore(key())).isTrue();
		LockBackend other = newBackend();
		AcquireResult refused = Backends.tryAcquire(other, key(), "owner-2", Duration.ofSeconds(10));
		assertThat(refused.acquired()).isFalse();
		assertThat(refused.holderLeaseRemaining()).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
		assertThat(lock.releaseLock(key(), "owner-1")).isTrue();
	}

	@Test
	void lockTakenInsideATransactionIsSeenAtOnceAndSurvivesItsRollback() throws Exception {
		HikariDataSource dataSource = closeAfterTest(database().newDataSource());
		DefaultDistributeLock lock = newLock(new JdbcLockBackend(dataSource),
				DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		DataSourceTransactionManager transactions = new DataSourceTransactionManager(dataSource);
		TransactionStatus transaction = transactions.getTransaction(TransactionDefinition.withDefaults());
		LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		assertThat(isLockedInStore(key())).isTrue();
		transactions.rollback(transaction);
		assertThat(isLockedInStore(key())).isTrue();
		handle.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * ShedLock's "fuzz test with transaction": transactions on the lock table's own pool
	 * lock and release inside themselves. A lock statement must borrow a connection only
	 * for itself and never stay enlisted in the caller's transaction, or a pool is
	 * exhausted by fewer transactions than it has connections.
	 */
	@Test
	void transactionsThatLockBorrowAConnectionOnlyForEachStatement() throws Exception {
		int poolSize = 4;
		int transactionCount = 3;
		HikariDataSource dataSource = database().newDataSource((config) -> {
			config.setMaximumPoolSize(poolSize);
			config.setConnectionTimeout(2_000);
		});
		closeAfterTest(dataSource);
		DefaultDistributeLock lock = newLock(new JdbcLockBackend(dataSource),
				DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		JdbcTemplate inTransaction = new JdbcTemplate(dataSource);
		// A first commit loads classes of the driver: left to the concurrent commits
		// below, the loading pins virtual threads in the JDK's class loader (33 us on
		// JDK 25, in the driver, not in the lock), which the variant on virtual threads
		// counts as a failure.
		transactions.executeWithoutResult((status) -> inTransaction.queryForObject("SELECT 1", Integer.class));
		CyclicBarrier allLockedAndReleased = new CyclicBarrier(transactionCount + 1);
		CountDownLatch poolChecked = new CountDownLatch(1);
		List<CompletableFuture<Void>> workers = new ArrayList<>();
		for (int t = 0; t < transactionCount; t++) {
			String workerKey = key() + "." + t;
			workers.add(CompletableFuture.runAsync(() -> transactions.executeWithoutResult((status) -> {
				inTransaction.queryForObject("SELECT 1", Integer.class);
				for (int i = 0; i < 5; i++) {
					try (LockHandle handle = lock.tryAcquire(workerKey, Duration.ofSeconds(10), null).orElseThrow()) {
						assertThat(handle.isHeld()).isTrue();
					}
					catch (InterruptedException ex) {
						throw new IllegalStateException(ex);
					}
				}
				awaitQuietly(allLockedAndReleased);
				awaitQuietly(poolChecked);
			}), callers()));
		}
		allLockedAndReleased.await(60, TimeUnit.SECONDS);
		try {
			// Only the transactions' own connections are out while they are still open.
			assertThat(dataSource.getHikariPoolMXBean().getActiveConnections()).isEqualTo(transactionCount);
		}
		finally {
			poolChecked.countDown();
		}
		CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
		assertThat(dataSource.getHikariPoolMXBean().getActiveConnections()).isZero();
	}

	private static void awaitQuietly(CyclicBarrier barrier) {
		try {
			barrier.await(60, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			if (!latch.await(60, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Timed out waiting for the pool check");
			}
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException(ex);
		}
	}

	@Test
	void poolInManualCommitModeStillCommitsEachStatement() throws Exception {
		HikariDataSource dataSource = database().newDataSource((config) -> config.setAutoCommit(false));
		closeAfterTest(dataSource);
		DefaultDistributeLock lock = newLock(new JdbcLockBackend(dataSource),
				DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		assertThat(isLockedInStore(key())).isTrue();
		handle.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void releasedRowIsKeptFreeForTheRetentionThenDeletedByALaterRelease() throws Exception {
		HikariDataSource dataSource = closeAfterTest(database().newDataSource());
		Duration retention = Duration.ofMillis(300);
		JdbcLockBackend backend = new JdbcLockBackend(dataSource, JdbcLockBackend.DEFAULT_TABLE_NAME, null,
				Clock.systemUTC(), retention);
		String released = key() + ".released";
		AcquireResult first = Backends.tryAcquire(backend, released, "owner-1", Duration.ofSeconds(30));
		assertThat(Backends.release(backend, released, "owner-1")).isTrue();
		assertThat(isLockedInStore(released)).isFalse();
		assertThat(rowCount(released)).isOne();
		AcquireResult again = Backends.tryAcquire(backend, released, "owner-2", Duration.ofSeconds(30));
		assertThat(again.fencingToken()).isGreaterThan(first.fencingToken());
		assertThat(Backends.release(backend, released, "owner-2")).isTrue();
		// A later release of any key deletes the rows once the retention has passed.
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			Backends.tryAcquire(backend, key(), "owner-3", Duration.ofSeconds(30));
			Backends.release(backend, key(), "owner-3");
			return rowCount(released) == 0;
		});
		assertThat(Backends.tryAcquire(backend, released, "owner-4", Duration.ofSeconds(30)).acquired()).isTrue();
		assertThat(Backends.release(backend, released, "owner-4")).isTrue();
	}

	private int rowCount(String key) {
		Integer rows = database().jdbcTemplate()
			.queryForObject("SELECT COUNT(*) FROM distributelock WHERE lock_key = ?", Integer.class, key);
		return (rows != null) ? rows : 0;
	}

	/**
	 * The interleaving that once put a PostgreSQL token out of order, made deterministic
	 * where a database makes an insert wait for an uncommitted row of the same key:
	 * statement A draws its token and waits for a transaction T that inserted the key (on
	 * MySQL the attempt draws its token in a first statement, then its upsert waits).
	 * Inside T, with the lock's own statements, holder B releases and holder C acquires
	 * (drawing a token after A's) and releases; T commits. A must not win with the token
	 * it drew before C's: the released row is still there, so A either takes it over and
	 * draws a new token under its row lock, or, where its statement's clock started
	 * before the release, finds it held and succeeds at the next attempt.
	 */
	@Test
	void statementThatDrewItsTokenBeforeALaterHolderCannotUseItAfterThatHolderReleased() throws Exception {
		HikariDataSource dataSource = closeAfterTest(database().newDataSource());
		JdbcLockBackend backend = new JdbcLockBackend(dataSource);
		JdbcLockDialect dialect = JdbcLockDialect.named(database().dialect());
		JdbcLockRepository acquire = new JdbcLockRepository(dataSource, dialect, JdbcLockBackend.DEFAULT_TABLE_NAME);
		LockStatement release = LockStatement.load(dialect, "release.sql", JdbcLockBackend.DEFAULT_TABLE_NAME);
		long laterHoldersToken;
		CompletableFuture<AcquireResult> statementA;
		try (Connection transaction = dataSource.getConnection()) {
			transaction.setAutoCommit(false);
			assertThat(acquireIn(transaction, acquire, "holder-b")).isNotNull();
			statementA = CompletableFuture
				.supplyAsync(() -> Backends.tryAcquire(backend, key(), "a", Duration.ofSeconds(30)), callers());
			await().atMost(Duration.ofSeconds(20)).until(this::lockWaits, (waits) -> waits > 0);
			releaseIn(transaction, release, "holder-b");
			Long token = acquireIn(transaction, acquire, "holder-c");
			assertThat(token).isNotNull();
			laterHoldersToken = token;
			releaseIn(transaction, release, "holder-c");
			transaction.commit();
		}
		AcquireResult a = statementA.get(20, TimeUnit.SECONDS);
		if (!a.acquired()) {
			a = Backends.tryAcquire(backend, key(), "a", Duration.ofSeconds(30));
		}
		assertThat(a.acquired()).isTrue();
		assertThat(a.fencingToken()).isGreaterThan(laterHoldersToken);
		assertThat(Backends.release(backend, key(), "a")).isTrue();
	}

	private int lockWaits() {
		Integer waits = database().jdbcTemplate().queryForObject(database().lockWaitsQuery(), Integer.class);
		return (waits != null) ? waits : 0;
	}

	private @Nullable Long acquireIn(Connection transaction, JdbcLockRepository acquire, String owner)
			throws SQLException {
		JdbcLockRepository.Attempt attempt = acquire.attempt(transaction, key(), owner, 30_000L);
		assertThat(attempt).isNotNull();
		return attempt.fencingToken();
	}

	private void releaseIn(Connection transaction, LockStatement release, String owner) throws SQLException {
		try (PreparedStatement statement = transaction.prepareStatement(release.sql())) {
			new ArgumentPreparedStatementSetter(release.arguments(Map.of("key", key(), "owner", owner)))
				.setValues(statement);
			assertThat(statement.executeUpdate()).isOne();
		}
	}

	/** Why the hand-over contract tests do not apply to JDBC, plain or sharded. */
	static final String NO_HAND_OVER = "JdbcLockBackend and ShardedJdbcLockBackend do not implement "
			+ "HandOverLockBackend: a release and the next holder's attempt are two statements, so there is no "
			+ "hand-over to give up or be interrupted in; an interrupted wait is "
			+ "waiterInterruptedWhileWaitingGetsInterruptedExceptionAndTakesNothing";

	@Override
	@Test
	@Disabled(NO_HAND_OVER)
	protected void aWaiterThatGivesUpWhileTheLockIsHandedToItLeavesNothingInTheStore() {
	}

	@Override
	@Test
	@Disabled(NO_HAND_OVER)
	protected void aWaiterInterruptedWhileTheLockIsHandedToItLeavesNothingInTheStore() {
	}

}
