package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AbstractLockKindsContractTests;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.core.Locks;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.jdbc.core.ArgumentPreparedStatementSetter;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.awaitility.Awaitility.await;

/**
 * The kinds of lock on one real database, read back from the lock table and its queue,
 * holder and permit tables; plus what is particular to a table: waiters and holders that
 * crash leave by their lease, the permit count holds against racing statements, tokens
 * grow across kinds, and no row is left behind.
 */
abstract class AbstractJdbcLockKindsContractTests extends AbstractLockKindsContractTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	private static final Log logger = LogFactory.getLog(AbstractJdbcLockKindsContractTests.class);

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	private final String dialect;

	private final List<AutoCloseable> backends = new ArrayList<>();

	AbstractJdbcLockKindsContractTests(String dialect) {
		this.dialect = dialect;
	}

	JdbcTestDatabase database() {
		return databases.get(this.dialect);
	}

	@AfterEach
	void closeBackends() throws Exception {
		for (AutoCloseable backend : this.backends) {
			backend.close();
		}
	}

	/** A backend that no lock of the test uses, closed after the test. */
	private LockBackend backend() {
		return track(newBackend());
	}

	private LockBackend track(LockBackend backend) {
		this.backends.add((AutoCloseable) backend);
		return backend;
	}

	@Override
	protected LockBackend newBackend() {
		return new PooledBackend(database().newDataSource(), JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION);
	}

	@Test
	@Override
	@Disabled("JdbcLockBackend runs a plain claim with <dialect>/acquire.sql, which returns no holder, so it cannot "
			+ "tell a read/write marker from an owner: the request waits out its wait time and takes nothing instead "
			+ "of failing with LockKindConflictException, as for a node of the original starter "
			+ "(docs/backends/jdbc.md, Kinds of one key)")
	protected void aMultiKeyRequestWithAKeyHeldAsAnotherKindFailsAndTakesNoKey() {
	}

	/** Whether the key's row is held, or any reader, writer or permit holder is live. */
	@Override
	protected boolean isLockedInStore(String key) {
		return liveRows(key) > 0;
	}

	private int liveRows(String key) {
		String now = database().now();
		Integer rows = store()
			.queryForObject("SELECT (SELECT COUNT(*) FROM " + TABLE + " WHERE lock_key = ? AND " + "expires_at > " + now
					+ ") + (SELECT COUNT(*) FROM " + TABLE + "_h WHERE lock_key = ? AND " + "expires_at > " + now
					+ ") + (SELECT COUNT(*) FROM " + TABLE + "_p WHERE lock_key = ? AND " + "expires_at > " + now + ")",
					Integer.class, key, key, key);
		return (rows != null) ? rows : 0;
	}

	private int rows(String table, String where, Object... values) {
		Integer rows = store().queryForObject("SELECT COUNT(*) FROM " + table + " WHERE " + where, Integer.class,
				values);
		return (rows != null) ? rows : 0;
	}

	private JdbcTemplate store() {
		return database().jdbcTemplate();
	}

	private static LockBackend.Claim claim(String key, String owner, LockKind kind) {
		return new LockBackend.Claim(key, owner, null, kind);
	}

	/**
	 * The crashed waiter has a waiter lease of 2 s instead of
	 * {@link JdbcLockKinds#WAITER_LEASE}, so that the test does not wait 10 s for it; the
	 * holder releases while that lease still runs, which the test checks.
	 */
	@Test
	void aCrashedFairWaiterHoldsUpTheQueueOnlyUntilItsWaiterLeaseRunsOut() throws Exception {
		LockHandle held = newLock().tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		// One attempt queues the waiter; then it is gone: no further attempt, no release.
		LockBackend crashed = track(new PooledBackend(database().newDataSource(),
				JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION, Duration.ofSeconds(2)));
		assertThat(Backends.join(crashed.tryAcquire(claim(key(), "crashed", LockKind.FAIR), Duration.ofSeconds(30)))
			.acquired()).isFalse();
		Timestamp crashedLeaseEnd = store().queryForObject(
				"SELECT expires_at FROM " + TABLE + "_q WHERE lock_key = ? AND owner = ?", Timestamp.class, key(),
				"crashed");
		CompletableFuture<Optional<LockHandle>> behind = newLock()
			.tryAcquireAsync(LockRequest.of(key()).withFair(true).withWaitTime(Duration.ofSeconds(40)));
		await().atMost(Duration.ofSeconds(20)).until(() -> rows(TABLE + "_q", "lock_key = ?", key()) == 2);
		held.close();
		assertThat(
				rows(TABLE + "_q", "lock_key = ? AND owner = ? AND expires_at > " + database().now(), key(), "crashed"))
			.as("crashed waiters still in the queue when the holder released")
			.isOne();
		try (LockHandle taken = behind.get(40, TimeUnit.SECONDS).orElseThrow()) {
			Boolean afterTheCrashedLease = store().queryForObject(
					"SELECT acquired_at >= ? FROM " + TABLE + " WHERE lock_key = ?", Boolean.class, crashedLeaseEnd,
					key());
			assertThat(afterTheCrashedLease).isTrue();
			assertThat(taken.isHeld()).isTrue();
		}
		// The crashed waiter's row is inert, and the purge deletes it.
		JdbcLockBackend purging = new PooledBackend(database().newDataSource(), Duration.ofMillis(1));
		try (purging) {
			purging.deleteReleasedRows();
		}
		assertThat(rows(TABLE + "_q", "lock_key = ?", key())).isZero();
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void aCrashedReaderHoldsOffAWriterAndACrashedPermitHolderItsPermitOnlyForTheirLease() throws Exception {
		Duration lease = Duration.ofSeconds(2);
		String permits = key() + ".permits";
		LockBackend crashed = backend();
		assertThat(Backends.join(crashed.tryAcquire(claim(key(), "reader", LockKind.READ), lease)).acquired()).isTrue();
		assertThat(Backends.join(crashed.tryAcquire(claim(permits, "holder", LockKind.permits(1)), lease)).acquired())
			.isTrue();
		Timestamp readerLeaseEnd = store().queryForObject(
				"SELECT expires_at FROM " + TABLE + "_h WHERE lock_key = ? AND owner = ?", Timestamp.class, key(),
				"reader");
		Timestamp holderLeaseEnd = store().queryForObject(
				"SELECT expires_at FROM " + TABLE + "_p WHERE lock_key = ? AND owner = ?", Timestamp.class, permits,
				"holder");
		DefaultDistributeLock lock = newLock();
		try (LockHandle written = lock
			.tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE).withWaitTime(Duration.ofSeconds(20)))
			.orElseThrow();
				LockHandle permitted = lock
					.tryAcquire(LockRequest.of(permits).withPermits(1).withWaitTime(Duration.ofSeconds(20)))
					.orElseThrow()) {
			assertThat(store().queryForObject(
					"SELECT acquired_at >= ? FROM " + TABLE + "_h WHERE lock_key = ? AND " + "kind = 'write'",
					Boolean.class, readerLeaseEnd, key()))
				.isTrue();
			assertThat(store().queryForObject("SELECT acquired_at >= ? FROM " + TABLE + "_p WHERE lock_key = ?",
					Boolean.class, holderLeaseEnd, permits))
				.isTrue();
			assertThat(written.isHeld() && permitted.isHeld()).isTrue();
		}
		assertThat(isLockedInStore(key()) || isLockedInStore(permits)).isFalse();
	}

	/**
	 * Spring Integration's {@code JdbcLockRegistry} runs its statements in transactions
	 * of their own for this: a lock of any kind, taken or released inside the caller's
	 * transaction on the lock table's own pool, outlasts that transaction's rollback.
	 */
	@Test
	void everyKindTakenOrReleasedInsideATransactionOutlastsItsRollback() throws Exception {
		HikariDataSource dataSource = database().newDataSource();
		DefaultDistributeLock lock = closeAfterTest(new DefaultDistributeLock(
				trackBackend(new PooledBackend(dataSource, JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION))));
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		JdbcTemplate inTransaction = new JdbcTemplate(dataSource);
		List<LockRequest> kinds = List.of(LockRequest.of(key() + ".plain"),
				LockRequest.of(key() + ".fair").withFair(true), LockRequest.of(key() + ".read").withMode(LockMode.READ),
				LockRequest.of(key() + ".write").withMode(LockMode.WRITE),
				LockRequest.of(key() + ".permits").withPermits(1));
		for (LockRequest kind : kinds) {
			LockHandle held = transactions.execute((status) -> {
				inTransaction.queryForObject("SELECT 1", Integer.class);
				status.setRollbackOnly();
				return Locks.tryAcquire(lock, kind).orElseThrow();
			});
			assertThat(isLockedInStore(kind.key())).as(kind.key()).isTrue();
			LockRequest excluded = (kind.mode() == LockMode.READ) ? kind.withMode(LockMode.WRITE) : kind;
			assertThat(newLock().tryAcquire(excluded)).as(kind.key()).isEmpty();
			transactions.executeWithoutResult((status) -> {
				inTransaction.queryForObject("SELECT 1", Integer.class);
				status.setRollbackOnly();
				held.close();
			});
			assertThat(isLockedInStore(kind.key())).as(kind.key()).isFalse();
			assertThat(newLock().tryAcquire(kind)).as(kind.key()).hasValueSatisfying(LockHandle::close);
		}
	}

	/**
	 * A watchdog's renewal can run while its lock is released. A renewal whose clock was
	 * read before the release (here, its transaction began earlier: on PostgreSQL and H2
	 * {@code CURRENT_TIMESTAMP} is the transaction's start) must still not revive the
	 * released row, which it would if only the lease told a released row from a held one.
	 */
	@Test
	void aRenewalWhoseClockPredatesTheReleaseOfAFairLockDoesNotReviveIt() throws Exception {
		assertARenewalWhoseClockPredatesTheReleaseDoesNotReviveIt(LockKind.FAIR);
	}

	/**
	 * As for a fair lock: a plain release must leave nothing a late renewal can revive.
	 */
	@Test
	void aRenewalWhoseClockPredatesTheReleaseOfAPlainLockDoesNotReviveIt() throws Exception {
		assertARenewalWhoseClockPredatesTheReleaseDoesNotReviveIt(LockKind.EXCLUSIVE);
	}

	private void assertARenewalWhoseClockPredatesTheReleaseDoesNotReviveIt(LockKind kind) throws Exception {
		LockBackend backend = backend();
		LockBackend.Claim claim = claim(key(), "late-renewed-owner", kind);
		assertThat(Backends.join(backend.tryAcquire(claim, Duration.ofSeconds(30))).acquired()).isTrue();
		LockStatement renew = LockStatement.load(JdbcLockDialect.named(database().dialect()), "renew.sql", TABLE);
		try (Connection renewal = database().inspection().getConnection()) {
			renewal.setAutoCommit(false);
			try (PreparedStatement clock = renewal.prepareStatement("SELECT " + database().now())) {
				clock.executeQuery().close();
			}
			assertThat(Backends.join(backend.release(claim))).isTrue();
			try (PreparedStatement update = renewal.prepareStatement(renew.sql())) {
				new ArgumentPreparedStatementSetter(
						renew.arguments(Map.of("key", key(), "owner", "late-renewed-owner", "lease_ms", 30_000L)))
					.setValues(update);
				assertThat(update.executeUpdate()).as("rows the late renewal revived").isZero();
			}
			renewal.commit();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * The same race the other way round: the release locked the key's row first, and the
	 * watchdog's renewal, sent a moment earlier, waited for it. On MariaDB and MySQL each
	 * statement reads the clock when it runs, so the release's time is later than the
	 * renewal's and the released lease still looks running to the renewal.
	 */
	@Test
	void aRenewalWaitingBehindTheReleaseOfAPlainLockDoesNotReviveIt() throws Exception {
		LockBackend backend = backend();
		LockBackend.Claim plain = claim(key(), "plain-owner", LockKind.EXCLUSIVE);
		assertThat(Backends.join(backend.tryAcquire(plain, Duration.ofSeconds(30))).acquired()).isTrue();
		JdbcLockDialect dialect = JdbcLockDialect.named(database().dialect());
		LockStatement renew = LockStatement.load(dialect, "renew.sql", TABLE);
		LockStatement release = LockStatement.load(dialect, "release.sql", TABLE);
		ExecutorService renewals = Executors.newSingleThreadExecutor();
		try (Connection releasing = database().inspection().getConnection()) {
			releasing.setAutoCommit(false);
			try (PreparedStatement lock = releasing
				.prepareStatement("SELECT lock_key FROM " + TABLE + " WHERE lock_key = ? FOR UPDATE")) {
				lock.setString(1, key());
				lock.executeQuery().close();
			}
			Future<Integer> renewal = renewals.submit(() -> {
				try (Connection connection = database().inspection().getConnection();
						PreparedStatement update = connection.prepareStatement(renew.sql())) {
					new ArgumentPreparedStatementSetter(
							renew.arguments(Map.of("key", key(), "owner", "plain-owner", "lease_ms", 30_000L)))
						.setValues(update);
					return update.executeUpdate();
				}
			});
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				Integer waits = store().queryForObject(database().lockWaitsQuery(), Integer.class);
				return waits != null && waits > 0;
			});
			try (PreparedStatement update = releasing.prepareStatement(release.sql())) {
				new ArgumentPreparedStatementSetter(release.arguments(Map.of("key", key(), "owner", "plain-owner")))
					.setValues(update);
				assertThat(update.executeUpdate()).as("rows the release freed").isEqualTo(1);
			}
			releasing.commit();
			assertThat(renewal.get(10, TimeUnit.SECONDS)).as("rows the waiting renewal revived").isZero();
		}
		finally {
			renewals.shutdownNow();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * A renewal checks the lease against its own clock, which H2 fixes for the rest of
	 * the transaction at the first statement that reads it. A reader's renewal whose
	 * clock was read while its lease still ran must not revive the reader once a writer
	 * has taken the key after that lease ran out: reader and writer would both hold.
	 */
	@Test
	void aReaderRenewalWhoseClockPredatesAWritersTakeOverDoesNotReviveTheReader() throws Exception {
		LockBackend backend = backend();
		LockBackend.Claim reader = claim(key(), "reader", LockKind.READ);
		assertThat(Backends.join(backend.tryAcquire(reader, Duration.ofSeconds(3))).acquired()).isTrue();
		LockStatement holderRenew = LockStatement.load(JdbcLockDialect.named(database().dialect()),
				"kinds/holder-renew.sql", TABLE);
		String live = "lock_key = ? AND expires_at > " + database().now();
		try (Connection renewal = database().inspection().getConnection()) {
			renewal.setAutoCommit(false);
			try (PreparedStatement clock = renewal.prepareStatement("SELECT " + database().now())) {
				clock.executeQuery().close();
			}
			assertThat(rows(TABLE + "_h", live, key())).as("live readers after the renewal read its clock").isOne();
			await().atMost(Duration.ofSeconds(20)).until(() -> rows(TABLE + "_h", live, key()) == 0);
			LockBackend.Claim writer = claim(key(), "writer", LockKind.WRITE);
			assertThat(Backends.join(backend.tryAcquire(writer, Duration.ofSeconds(30))).acquired()).isTrue();
			try (PreparedStatement update = renewal.prepareStatement(holderRenew.sql())) {
				new ArgumentPreparedStatementSetter(
						holderRenew.arguments(Map.of("key", key(), "owner", "reader", "lease_ms", 30_000L)))
					.setValues(update);
				assertThat(update.executeUpdate()).as("reader rows the late renewal revived").isZero();
			}
			renewal.commit();
		}
		assertThat(rows(TABLE + "_h", live, key())).as("live readers and writers while the writer holds").isOne();
	}

	@Test
	void fencingTokensOfOneKeyGrowAcrossKinds() throws Exception {
		DefaultDistributeLock lock = newLock();
		List<Long> tokens = new ArrayList<>();
		for (LockRequest request : List.of(LockRequest.of(key()), LockRequest.of(key()).withFair(true),
				LockRequest.of(key()).withMode(LockMode.WRITE), LockRequest.of(key()).withMode(LockMode.READ),
				LockRequest.of(key()), LockRequest.of(key()).withPermits(2), LockRequest.of(key()).withFair(true))) {
			try (LockHandle handle = lock.tryAcquire(request).orElseThrow()) {
				tokens.add(handle.fencingToken());
			}
		}
		assertThat(tokens).isSorted().doesNotHaveDuplicates();
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void aPlainAttemptWaitsForTheOtherKindsAndOwnersThatLookLikeTheirMarkersAreRefused() throws Exception {
		DefaultDistributeLock plain = newLock();
		try (LockHandle read = newLock().tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow()) {
			// The plain statements cannot tell a marker from an owner: they wait, as
			// nodes
			// of the original starter would; only the other kinds report the conflict.
			assertThat(plain.tryAcquire(key(), Duration.ZERO, null)).isEmpty();
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(() -> newLock().tryAcquire(LockRequest.of(key()).withFair(true)))
				.withMessageContaining("held as a read/write lock");
			for (String marker : List.of(JdbcKindMarkers.READERS, JdbcKindMarkers.WRITER, JdbcKindMarkers.permits(2))) {
				assertThatExceptionOfType(DistributeLockException.class)
					.isThrownBy(() -> plain.tryAcquire(LockRequest.of(key()).withOwner(marker)))
					.withMessageContaining("owners starting with U+0001 are reserved");
			}
			LockBackend backend = backend();
			assertThat(Backends.release(backend, key(), JdbcKindMarkers.READERS)).isFalse();
			assertThat(read.isHeld() && isLockedInStore(key())).isTrue();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Many statements at once for the permits of one key, each from its own connection:
	 * the key's row lock orders them, and the permit slots' primary key bounds them.
	 */
	@Test
	void permitsAreNeverExceededByRacingAttempts() throws Exception {
		int permits = 3;
		int threads = 16;
		List<LockBackend> backends = List.of(backend(), backend(), backend(), backend());
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 5; round++) {
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<Boolean>> attempts = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					LockBackend backend = backends.get(t % backends.size());
					String owner = "round-" + round + "-" + t;
					attempts.add(pool.submit(() -> {
						start.await(30, TimeUnit.SECONDS);
						return Backends
							.join(backend.tryAcquire(claim(key(), owner, LockKind.permits(permits)),
									Duration.ofSeconds(30)))
							.acquired();
					}));
				}
				int acquired = 0;
				for (Future<Boolean> attempt : attempts) {
					acquired += attempt.get(60, TimeUnit.SECONDS) ? 1 : 0;
				}
				int live = rows(TABLE + "_p", "lock_key = ? AND expires_at > " + database().now(), key());
				assertThat(acquired).as("round %d", round).isBetween(1, permits).isEqualTo(live);
				for (int t = 0; t < threads; t++) {
					Backends.join(backends.get(t % backends.size())
						.release(claim(key(), "round-" + round + "-" + t, LockKind.permits(permits))));
				}
				assertThat(isLockedInStore(key())).isFalse();
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void manyThreadsOfFourInstancesNeverHoldMoreThanThePermits() throws Exception {
		int permits = 3;
		DefaultDistributeLock[] instances = { newLock(), newLock(), newLock(), newLock() };
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		AtomicInteger mostInStore = new AtomicInteger();
		ExecutorService pool = Executors.newFixedThreadPool(16);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < 16; t++) {
				DefaultDistributeLock lock = instances[t % instances.length];
				workers.add(pool.submit(() -> {
					for (int i = 0; i < 8; i++) {
						try (LockHandle handle = lock
							.tryAcquire(LockRequest.of(key()).withPermits(permits).withWaitTime(Duration.ofSeconds(90)))
							.orElseThrow()) {
							most.accumulateAndGet(inside.incrementAndGet(), Math::max);
							mostInStore.accumulateAndGet(
									rows(TABLE + "_p", "lock_key = ? AND expires_at > " + database().now(), key()),
									Math::max);
							inside.decrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(180, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(most.get()).isBetween(1, permits);
		assertThat(mostInStore.get()).isBetween(1, permits);
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Cycles of every kind, with waiters that give up and holders that crash: once the
	 * crashed leases have run out and the purge ran, no row of these keys is left in any
	 * table. {@code -Ddistributelock.kinds.cycles=N} runs more cycles.
	 */
	@Test
	void noRowIsLeftInAnyTableAfterManyCyclesAndThePurge() throws Exception {
		int cycles = Integer.getInteger("distributelock.kinds.cycles", 60);
		DefaultDistributeLock a = newLock();
		DefaultDistributeLock b = newLock();
		DefaultDistributeLock c = newLock();
		LockBackend crashing = backend();
		Duration crashedLease = Duration.ofMillis(500);
		for (int i = 0; i < cycles; i++) {
			String fair = key() + ".fair." + (i % 4);
			String readWrite = key() + ".rw." + (i % 4);
			String permits = key() + ".permits." + (i % 4);
			try (LockHandle held = a.tryAcquire(LockRequest.of(fair).withFair(true))
				.orElseThrow(() -> new AssertionError("Not acquired: " + describe(fair)))) {
				assertThat(b.tryAcquire(LockRequest.of(fair).withFair(true))).isEmpty();
			}
			LockHandle first = a.tryAcquire(LockRequest.of(readWrite).withMode(LockMode.READ)).orElseThrow();
			LockHandle second = b.tryAcquire(LockRequest.of(readWrite).withMode(LockMode.READ)).orElseThrow();
			assertThat(c.tryAcquire(LockRequest.of(readWrite).withMode(LockMode.WRITE))).isEmpty();
			first.close();
			second.close();
			try (LockHandle written = c.tryAcquire(LockRequest.of(readWrite).withMode(LockMode.WRITE)).orElseThrow()) {
				assertThat(a.tryAcquire(LockRequest.of(readWrite).withMode(LockMode.READ))).isEmpty();
			}
			try (LockHandle one = a.tryAcquire(LockRequest.of(permits).withPermits(2)).orElseThrow();
					LockHandle two = b.tryAcquire(LockRequest.of(permits).withPermits(2)).orElseThrow()) {
				assertThat(c.tryAcquire(LockRequest.of(permits).withPermits(2))).isEmpty();
			}
			if (i % 10 == 0) {
				String crashedKey = key() + ".crashed." + i;
				Backends.join(crashing.tryAcquire(claim(crashedKey + ".r", "r" + i, LockKind.READ), crashedLease));
				Backends.join(crashing.tryAcquire(claim(crashedKey + ".w", "w" + i, LockKind.WRITE), crashedLease));
				Backends
					.join(crashing.tryAcquire(claim(crashedKey + ".p", "p" + i, LockKind.permits(2)), crashedLease));
			}
		}
		// Before the purge only rows of the crashed holders are left (fewer once the
		// periodic purge, due once a minute, has deleted the oldest); every waiter left
		// the queue, every holder that released left its table.
		String ours = key() + ".%";
		String crashed = key() + ".crashed.%";
		int crashes = (cycles + 9) / 10;
		int waitersLeft = rows(TABLE + "_q", "lock_key LIKE ?", ours);
		int holdersLeft = rows(TABLE + "_h", "lock_key LIKE ?", ours);
		int permitsLeft = rows(TABLE + "_p", "lock_key LIKE ?", ours);
		logger.info(cycles + " cycles on " + database() + ": " + waitersLeft + " waiters, " + holdersLeft
				+ " readers and writers (of " + 2 * crashes + " crashed) and " + permitsLeft + " permit holders (of "
				+ crashes + " crashed) left before the purge");
		assertThat(waitersLeft).as("waiters left").isZero();
		assertThat(rows(TABLE + "_h", "lock_key LIKE ? AND lock_key NOT LIKE ?", ours, crashed))
			.as("readers and writers left that released")
			.isZero();
		assertThat(rows(TABLE + "_p", "lock_key LIKE ? AND lock_key NOT LIKE ?", ours, crashed))
			.as("permit holders left that released")
			.isZero();
		assertThat(holdersLeft).isLessThanOrEqualTo(2 * crashes);
		assertThat(permitsLeft).isLessThanOrEqualTo(crashes);
		await().atMost(Duration.ofSeconds(20)).until(() -> liveRowsLike(ours) == 0);
		try (JdbcLockBackend purging = new PooledBackend(database().newDataSource(), Duration.ofMillis(1))) {
			purging.deleteReleasedRows();
		}
		for (String table : List.of(TABLE, TABLE + "_q", TABLE + "_h", TABLE + "_p")) {
			assertThat(rows(table, "lock_key LIKE ?", ours)).as("rows left in %s after the purge", table).isZero();
		}
		logger.info(cycles + " cycles on " + database() + ": no row left in any table after the purge");
	}

	/**
	 * The rows of a key in every table, with the database clock, for failure messages.
	 */
	private String describe(String key) {
		StringBuilder rows = new StringBuilder(
				"now " + store().queryForObject("SELECT " + database().now(), String.class));
		for (String table : List.of(TABLE, TABLE + "_q", TABLE + "_h", TABLE + "_p")) {
			rows.append("; ")
				.append(table)
				.append(": ")
				.append(store().queryForList("SELECT * FROM " + table + " WHERE lock_key = ?", key));
		}
		return rows.toString();
	}

	private int liveRowsLike(String pattern) {
		String live = "lock_key LIKE ? AND expires_at > " + database().now();
		return rows(TABLE, live, pattern) + rows(TABLE + "_h", live, pattern) + rows(TABLE + "_p", live, pattern);
	}

	@Test
	void theSchemaScriptRunsAgainOverTheTablesOfTheKinds() {
		JdbcLockBackend backend = (JdbcLockBackend) backend();
		assertThatNoException().isThrownBy(backend::createSchema);
		for (String table : List.of(TABLE + "_q", TABLE + "_h", TABLE + "_p")) {
			assertThat(rows(table, "1 = 1")).as(table).isNotNegative();
		}
	}

	/**
	 * A backend on a pool of its own, closed with it, as one instance of the application.
	 */
	private static final class PooledBackend extends JdbcLockBackend {

		private final HikariDataSource dataSource;

		PooledBackend(HikariDataSource dataSource, Duration releasedRowRetention) {
			this(dataSource, releasedRowRetention, JdbcLockKinds.WAITER_LEASE);
		}

		PooledBackend(HikariDataSource dataSource, Duration releasedRowRetention, Duration waiterLease) {
			super(dataSource, DEFAULT_TABLE_NAME, null, Clock.systemUTC(), releasedRowRetention, true, waiterLease);
			this.dataSource = dataSource;
		}

		@Override
		public void close() {
			try {
				super.close();
			}
			finally {
				this.dataSource.close();
			}
		}

	}

}
