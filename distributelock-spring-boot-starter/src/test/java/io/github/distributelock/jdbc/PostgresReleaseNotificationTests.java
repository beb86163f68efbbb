package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.LogLines;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiters on PostgreSQL are woken by the release's {@code NOTIFY}, received by one
 * {@code LISTEN}ing connection per backend, in another instance (another connection pool)
 * than the holder's. Polling is made so slow here (a minute) that only the notification
 * can explain a hand-off within seconds; the holder's lease (30 s, renewed) is far longer
 * too.
 */
@ExtendWith(OutputCaptureExtension.class)
class PostgresReleaseNotificationTests {

	private static final Duration SLOW = Duration.ofMinutes(1);

	/** Far below the slow poll and the holder's lease, far above a hand-off. */
	private static final long WOKEN_WITHIN_MILLIS = 15_000;

	private static JdbcTestDatabase database;

	private final Closeables closeables = new Closeables();

	private final ExecutorService callers = Executors.newCachedThreadPool();

	@BeforeAll
	static void startDatabase() {
		database = JdbcTestDatabase.start("postgresql");
	}

	@AfterAll
	static void stopDatabase() throws Exception {
		if (database != null) {
			database.close();
		}
	}

	@AfterEach
	void closeAll() throws Exception {
		this.callers.shutdownNow();
		this.closeables.close();
	}

	@Test
	void waiterInAnotherInstanceIsWokenByTheReleaseLongBeforeItWouldPoll() throws Exception {
		String key = "notified.'; NOTIFY other; --\"ü." + System.nanoTime();
		DefaultDistributeLock holder = newLock(backend(database.newDataSource()));
		JdbcLockBackend waiterBackend = backend(database.newDataSource());
		waiterBackend.pace(SLOW, SLOW, SLOW);
		PostgresReleaseListener listener = listening(waiterBackend);
		long wakeUps = listener.wakeUps();
		assertThat(handOffMillis(holder, waiterBackend, key)).isLessThan(WOKEN_WITHIN_MILLIS);
		assertThat(listener.wakeUps()).isGreaterThan(wakeUps);
	}

	/**
	 * A waiter whose wait starts after the notification of the release came (the release
	 * overtook it between its attempt and its wait) attempts again at once, and counts as
	 * woken by the notification: tests that check a wake-up were flaky on a loaded
	 * machine when the release came first.
	 */
	@Test
	void waiterWhoseWaitStartsAfterTheNotificationIsWokenAtOnce() throws Exception {
		String key = "notified.early." + System.nanoTime();
		DefaultDistributeLock holder = newLock(backend(database.newDataSource()));
		JdbcLockBackend waiterBackend = backend(database.newDataSource());
		waiterBackend.pace(SLOW, SLOW, SLOW);
		PostgresReleaseListener listener = listening(waiterBackend);
		CountingLockBackend counting = CountingLockBackend.of(waiterBackend);
		CompletableFuture<Void> waitsGo = counting.holdBackWaits();
		DefaultDistributeLock waiter = newLock(counting);
		LockHandle held = holder.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = waitFor(waiter, key);
		assertThat(counting.waiting.await(20, TimeUnit.SECONDS)).isTrue();
		long generation = listener.generation();
		long wakeUps = listener.wakeUps();
		held.close();
		await().atMost(Duration.ofSeconds(20)).until(() -> listener.generation() > generation);
		waitsGo.complete(null);
		Optional<LockHandle> acquired = waiting.get(WOKEN_WITHIN_MILLIS, TimeUnit.MILLISECONDS);
		assertThat(acquired).isPresent();
		acquired.get().close();
		assertThat(listener.wakeUps()).isGreaterThan(wakeUps);
	}

	@Test
	void listenerComesBackAfterItsConnectionIsKilledAndWaitersPollMeanwhile(CapturedOutput output) throws Exception {
		String key = "reconnect." + System.nanoTime();
		DefaultDistributeLock holder = newLock(backend(database.newDataSource()));
		ListenerBlocker waiterDataSource = new ListenerBlocker(database.newDataSource());
		JdbcLockBackend waiterBackend = backend(waiterDataSource);
		PostgresReleaseListener listener = listening(waiterBackend);
		Integer killed = listener.backendPid();
		assertThat(killed).isNotNull();
		waiterDataSource.refuseListener = true;
		terminate(killed);
		await().atMost(Duration.ofSeconds(20)).until(() -> !listener.listening());
		// Nobody listens now: the waiter polls, as fast as by default.
		long wakeUps = listener.wakeUps();
		assertThat(handOffMillis(holder, waiterBackend, key)).isLessThan(WOKEN_WITHIN_MILLIS);
		assertThat(listener.wakeUps()).isEqualTo(wakeUps);
		// The listener stops listening, then logs why.
		await().atMost(Duration.ofSeconds(10)).until(() -> !LogLines.containing(output, "LISTEN connection").isEmpty());
		assertThat(LogLines.containing(output, "LISTEN connection")).singleElement()
			.asString()
			.contains("WARN", "Lost or could not open the LISTEN connection for the releases of lock table "
					+ "distributelock, so waiters poll the table until it is back");
		waiterDataSource.refuseListener = false;
		await().atMost(Duration.ofSeconds(20))
			.until(() -> listener.listening() && listener.backendPid() != null
					&& !killed.equals(listener.backendPid()));
		waiterBackend.pace(SLOW, SLOW, SLOW);
		assertThat(handOffMillis(holder, waiterBackend, key)).isLessThan(WOKEN_WITHIN_MILLIS);
		assertThat(listener.wakeUps()).isGreaterThan(wakeUps);
		// The listener listens again, then logs it.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> LogLines.containing(output, "LISTEN connection").size() >= 2);
		assertThat(LogLines.containing(output, "LISTEN connection")).hasSize(2)
			.last()
			.asString()
			.contains("INFO", "Listening again on the LISTEN connection for the releases of lock table distributelock");
	}

	/**
	 * The listener borrows its connection from the application's pool: given back still
	 * listening, it would buffer every notification of the lock table for whoever borrows
	 * it next.
	 */
	@Test
	void listenConnectionGoesBackToThePoolNoLongerListening() throws Exception {
		HikariDataSource pool = database.newDataSource((config) -> {
			config.setMaximumPoolSize(2);
			config.setMinimumIdle(2);
		});
		JdbcLockBackend backend = backend(pool);
		Integer listenerPid = listening(backend).backendPid();
		assertThat(listenerPid).isNotNull();
		backend.close();
		// The listener's thread sees the close within one receive and gives its
		// connection back.
		await().atMost(Duration.ofSeconds(10)).until(() -> pool.getHikariPoolMXBean().getActiveConnections() == 0);
		// Borrowing the whole pool reaches the listener's former connection.
		Map<Integer, Integer> channelsByPid = new HashMap<>();
		try (Connection first = pool.getConnection(); Connection second = pool.getConnection()) {
			for (Connection connection : List.of(first, second)) {
				try (Statement statement = connection.createStatement();
						ResultSet rs = statement
							.executeQuery("SELECT pg_backend_pid(), (SELECT COUNT(*) FROM pg_listening_channels())")) {
					rs.next();
					channelsByPid.put(rs.getInt(1), rs.getInt(2));
				}
			}
		}
		assertThat(channelsByPid).as("channels each pooled connection listens on, by backend pid")
			.containsEntry(listenerPid, 0);
	}

	@Test
	void releaseByAnInstanceThatDoesNotNotifyIsSeenByTheWaitersCheck() throws Exception {
		String key = "silent." + System.nanoTime();
		JdbcLockBackend silent = track(
				new JdbcLockBackend(track(database.newDataSource()), JdbcLockBackend.DEFAULT_TABLE_NAME, null,
						Clock.systemUTC(), JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION, false));
		assertThat(silent.notifiesReleases()).isFalse();
		JdbcLockBackend waiterBackend = backend(database.newDataSource());
		waiterBackend.pace(SLOW, SLOW, Duration.ofMillis(200));
		PostgresReleaseListener listener = listening(waiterBackend);
		long wakeUps = listener.wakeUps();
		assertThat(handOffMillis(newLock(silent), waiterBackend, key)).isLessThan(WOKEN_WITHIN_MILLIS);
		assertThat(listener.wakeUps()).isEqualTo(wakeUps);
	}

	/**
	 * A holder that keeps the key for the rest of its minimum hold cuts its lease instead
	 * of releasing it, so nothing notifies: the waiter's check that reads the cut lease
	 * wakes the waiter when that lease ends, not at its next check, seconds later.
	 */
	@Test
	void waiterTakesTheKeyWhenTheMinimumHoldOfItsHolderEndsNotAtItsNextCheck() throws Exception {
		String key = "minimum-hold." + System.nanoTime();
		DefaultDistributeLock holder = newLock(backend(database.newDataSource()));
		JdbcLockBackend waiterBackend = backend(database.newDataSource());
		waiterBackend.pace(SLOW, SLOW, Duration.ofSeconds(5));
		listening(waiterBackend);
		CountingLockBackend counting = CountingLockBackend.of(waiterBackend);
		DefaultDistributeLock waiter = newLock(counting);
		LockHandle held = holder.tryAcquire(LockRequest.of(key).withMinimumHold(Duration.ofSeconds(8))).orElseThrow();
		long acquired = System.nanoTime();
		CompletableFuture<Optional<LockHandle>> waiting = waiter
			.tryAcquireAsync(LockRequest.of(key).withWaitTime(Duration.ofMinutes(2)));
		assertThat(counting.waiting.await(20, TimeUnit.SECONDS)).isTrue();
		held.close();
		assertThat(waiting.get(1, TimeUnit.MINUTES)).hasValueSatisfying(LockHandle::close);
		// The hold ends 8 s after the acquisition; the checks come 5 s apart.
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - acquired)).isBetween(7_000L, 9_500L);
	}

	/**
	 * A plain waiter whose key is held as a fair lock, a write lock or permits is woken
	 * by that holder's release as by a plain holder's: the holder's fixed lease (two
	 * minutes) and the waiter's checks (a minute apart) both end long after the wait
	 * allowed here.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "fair", "write", "permits" })
	void plainWaiterIsWokenByTheReleaseOfAFairWriteOrPermitHolder(String kind) throws Exception {
		String key = "kind." + kind + "." + System.nanoTime();
		DefaultDistributeLock holder = newLock(backend(database.newDataSource()));
		JdbcLockBackend waiterBackend = backend(database.newDataSource());
		waiterBackend.pace(SLOW, SLOW, SLOW);
		PostgresReleaseListener listener = listening(waiterBackend);
		CountingLockBackend counting = CountingLockBackend.of(waiterBackend);
		DefaultDistributeLock waiter = newLock(counting);
		LockRequest held = switch (kind) {
			case "fair" -> LockRequest.of(key).withFair(true);
			case "write" -> LockRequest.of(key).withMode(LockMode.WRITE);
			default -> LockRequest.of(key).withPermits(2);
		};
		LockHandle holding = holder.tryAcquire(held.withLeaseTime(Duration.ofMinutes(2))).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = waiter
			.tryAcquireAsync(LockRequest.of(key).withWaitTime(Duration.ofMinutes(2)));
		assertThat(counting.waiting.await(20, TimeUnit.SECONDS)).isTrue();
		long wakeUps = listener.wakeUps();
		holding.close();
		assertThat(waiting.get(WOKEN_WITHIN_MILLIS, TimeUnit.MILLISECONDS)).hasValueSatisfying(LockHandle::close);
		assertThat(listener.wakeUps()).isGreaterThan(wakeUps);
	}

	/**
	 * A reader or permit holder that leaves while another still holds the key shortens
	 * the key's row to the lease left, without freeing it, and notifies: a plain waiter,
	 * whose wait ends with the lease its attempt read (two minutes) and whose checks come
	 * a minute apart, takes the key when the shorter lease ends, not at its next check.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "read", "permits" })
	void plainWaiterIsWokenByAReleaseThatShortensTheLeaseOfTheKey(String kind) throws Exception {
		String key = "shortened." + kind + "." + System.nanoTime();
		JdbcLockBackend holders = backend(database.newDataSource());
		JdbcLockBackend waiterBackend = backend(database.newDataSource());
		waiterBackend.pace(SLOW, SLOW, SLOW);
		PostgresReleaseListener listener = listening(waiterBackend);
		CountingLockBackend counting = CountingLockBackend.of(waiterBackend);
		DefaultDistributeLock waiter = newLock(counting);
		LockKind held = kind.equals("read") ? LockKind.READ : LockKind.permits(2);
		Claim shorter = new Claim(key, "shorter", null, held);
		Claim longer = new Claim(key, "longer", null, held);
		Duration shorterLease = Duration.ofSeconds(8);
		assertThat(holders.tryAcquire(shorter, shorterLease).toCompletableFuture().get(1, TimeUnit.MINUTES).acquired())
			.isTrue();
		long shorterEnds = System.nanoTime() + shorterLease.toNanos();
		assertThat(holders.tryAcquire(longer, Duration.ofMinutes(2))
			.toCompletableFuture()
			.get(1, TimeUnit.MINUTES)
			.acquired()).isTrue();
		CompletableFuture<Optional<LockHandle>> waiting = waiter
			.tryAcquireAsync(LockRequest.of(key).withWaitTime(Duration.ofMinutes(2)));
		assertThat(counting.waiting.await(20, TimeUnit.SECONDS)).isTrue();
		long wakeUps = listener.wakeUps();
		assertThat(holders.release(longer).toCompletableFuture().get(1, TimeUnit.MINUTES)).isTrue();
		assertThat(waiting.get(3, TimeUnit.MINUTES)).hasValueSatisfying(LockHandle::close);
		// Without the notification: at the waiter's check, about a minute later.
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - shorterEnds)).isBetween(-1_000L, 5_000L);
		assertThat(listener.wakeUps()).isGreaterThan(wakeUps);
	}

	/**
	 * A reader that leaves without the longest lease leaves the key's row as it was: no
	 * plain waiter has anything new to read, so nothing notifies, until the last reader
	 * leaves.
	 */
	@Test
	void readerReleaseThatLeavesTheLeaseOfTheKeyAsItWasNotifiesNobody() throws Exception {
		assertAReleaseThatLeavesTheLeaseOfTheKeyAsItWasNotifiesNobody(LockKind.READ);
	}

	/**
	 * As for readers: the key's row of permit holders lasts exactly as long as the
	 * longest lease of their slots, so a holder that leaves without it changes nothing a
	 * plain waiter reads.
	 */
	@Test
	void permitReleaseThatLeavesTheLeaseOfTheKeyAsItWasNotifiesNobody() throws Exception {
		assertAReleaseThatLeavesTheLeaseOfTheKeyAsItWasNotifiesNobody(LockKind.permits(2));
	}

	private void assertAReleaseThatLeavesTheLeaseOfTheKeyAsItWasNotifiesNobody(LockKind kind) throws Exception {
		String key = "unshortened." + kind.tag() + "." + System.nanoTime();
		JdbcLockBackend backend = backend(database.newDataSource());
		Claim shorter = new Claim(key, "shorter", null, kind);
		Claim longer = new Claim(key, "longer", null, kind);
		assertThat(backend.tryAcquire(shorter, Duration.ofMinutes(1))
			.toCompletableFuture()
			.get(1, TimeUnit.MINUTES)
			.acquired()).isTrue();
		assertThat(backend.tryAcquire(longer, Duration.ofMinutes(2))
			.toCompletableFuture()
			.get(1, TimeUnit.MINUTES)
			.acquired()).isTrue();
		// A refused plain attempt marks the row as waited for.
		assertThat(newLock(backend).tryAcquire(key, Duration.ZERO, null)).isEmpty();
		try (HikariDataSource listening = database.newDataSource(); Connection connection = listening.getConnection()) {
			listen(connection, JdbcLockBackend.DEFAULT_TABLE_NAME);
			assertThat(backend.release(shorter).toCompletableFuture().get(1, TimeUnit.MINUTES)).isTrue();
			assertThat(notifiedKeysUntilSentinel(connection, JdbcLockBackend.DEFAULT_TABLE_NAME)).doesNotContain(key);
			assertThat(backend.release(longer).toCompletableFuture().get(1, TimeUnit.MINUTES)).isTrue();
			assertThat(notifiedKeysUntilSentinel(connection, JdbcLockBackend.DEFAULT_TABLE_NAME)).contains(key);
		}
	}

	/**
	 * On a lock table without the waited column, the release of another kind notifies
	 * every time, as plain releases do there, instead of failing on the missing column.
	 */
	@Test
	void fairReleaseOnATableWithoutTheWaitedColumnNotifies() throws Exception {
		String table = "unmarked_kinds_" + System.nanoTime();
		JdbcLockBackend backend = backend(database.newDataSource(), table);
		backend.createSchema();
		database.jdbcTemplate().execute("ALTER TABLE " + table + " DROP COLUMN waited");
		String key = "fair.unmarked." + System.nanoTime();
		try (HikariDataSource listening = database.newDataSource(); Connection connection = listening.getConnection()) {
			listen(connection, table);
			newLock(backend).tryAcquire(LockRequest.of(key).withFair(true)).orElseThrow().close();
			assertThat(notifiedKeysUntilSentinel(connection, table)).contains(key);
		}
		assertThat(database.jdbcTemplate()
			.queryForObject("SELECT COUNT(*) FROM " + table + " WHERE lock_key = ? AND expires_at > CURRENT_TIMESTAMP",
					Integer.class, key))
			.isZero();
	}

	/**
	 * A release of another kind that fails on a column of the kinds' own tables (here
	 * renamed while the lock is held) is not taken for a lock table without the waited
	 * column: that switched every later plain release to notify every time, and logged a
	 * WARN that told the user to add a column that is there.
	 */
	@Test
	void kindReleaseFailingOnAnotherColumnKeepsTheWaitedMarks(CapturedOutput output) throws Exception {
		String table = "renamed_kinds_" + System.nanoTime();
		JdbcLockBackend backend = backend(database.newDataSource(), table);
		backend.createSchema();
		Claim fair = new Claim("fair.renamed." + System.nanoTime(), "holder", null, LockKind.FAIR);
		assertThat(backend.tryAcquire(fair, Duration.ofMinutes(1))
			.toCompletableFuture()
			.get(1, TimeUnit.MINUTES)
			.acquired()).isTrue();
		database.jdbcTemplate().execute("ALTER TABLE " + table + "_q RENAME COLUMN owner TO renamed");
		try {
			assertThat(backend.release(fair).toCompletableFuture()).failsWithin(Duration.ofMinutes(1))
				.withThrowableThat()
				.withMessageContaining("do not match what this version expects");
		}
		finally {
			database.jdbcTemplate().execute("ALTER TABLE " + table + "_q RENAME COLUMN renamed TO owner");
		}
		assertThat(LogLines.containing(output, "has no column waited")).isEmpty();
		String key = "unwaited.after.renamed." + System.nanoTime();
		try (HikariDataSource listening = database.newDataSource(); Connection connection = listening.getConnection()) {
			listen(connection, table);
			newLock(backend).tryAcquire(key, Duration.ZERO, null).orElseThrow().close();
			assertThat(notifiedKeysUntilSentinel(connection, table)).doesNotContain(key);
		}
	}

	/**
	 * A plain attempt refused by a fair holder marks the key's row, and that holder's
	 * release notifies; the next fair holder, for whom nobody waited, notifies nobody.
	 */
	@Test
	void fairReleaseNobodyWaitedForAfterAMarkedOneNotifiesNobody() throws Exception {
		String key = "fair.marked.once." + System.nanoTime();
		JdbcLockBackend backend = backend(database.newDataSource());
		DefaultDistributeLock lock = newLock(backend);
		DefaultDistributeLock other = newLock(backend(database.newDataSource()));
		try (HikariDataSource listening = database.newDataSource(); Connection connection = listening.getConnection()) {
			listen(connection, JdbcLockBackend.DEFAULT_TABLE_NAME);
			LockHandle first = lock.tryAcquire(LockRequest.of(key).withFair(true)).orElseThrow();
			assertThat(other.tryAcquire(key, Duration.ZERO, null)).as("a plain attempt, refused").isEmpty();
			first.close();
			assertThat(notifiedKeysUntilSentinel(connection, JdbcLockBackend.DEFAULT_TABLE_NAME)).containsOnlyOnce(key);
			lock.tryAcquire(LockRequest.of(key).withFair(true)).orElseThrow().close();
			assertThat(notifiedKeysUntilSentinel(connection, JdbcLockBackend.DEFAULT_TABLE_NAME)).doesNotContain(key);
		}
	}

	@Test
	void releaseThatNobodyWaitedForNotifiesNobody() throws Exception {
		String key = "unwaited." + System.nanoTime();
		DefaultDistributeLock lock = newLock(backend(database.newDataSource()));
		try (HikariDataSource listening = database.newDataSource(); Connection connection = listening.getConnection()) {
			listen(connection, JdbcLockBackend.DEFAULT_TABLE_NAME);
			lock.tryAcquire(key, Duration.ZERO, null).orElseThrow().close();
			assertThat(notifiedKeysUntilSentinel(connection, JdbcLockBackend.DEFAULT_TABLE_NAME)).doesNotContain(key);
		}
	}

	@Test
	void tableWithoutTheWaitedColumnNotifiesEveryReleaseAndSaysHowToAddIt(CapturedOutput output) throws Exception {
		String table = tableWithoutWaitedColumn();
		JdbcLockBackend holderBackend = backend(database.newDataSource(), table);
		JdbcLockBackend waiterBackend = backend(database.newDataSource(), table);
		waiterBackend.pace(SLOW, SLOW, SLOW);
		PostgresReleaseListener listener = listening(waiterBackend);
		long wakeUps = listener.wakeUps();
		assertThat(handOffMillis(newLock(holderBackend), waiterBackend, "unmarked")).isLessThan(WOKEN_WITHIN_MILLIS);
		assertThat(listener.wakeUps()).isGreaterThan(wakeUps);
		try (HikariDataSource listening = database.newDataSource(); Connection connection = listening.getConnection()) {
			listen(connection, table);
			newLock(holderBackend).tryAcquire("alone", Duration.ZERO, null).orElseThrow().close();
			assertThat(notifiedKeysUntilSentinel(connection, table)).contains("alone");
		}
		assertThat(LogLines.containing(output, "has no column waited")).hasSize(2)
			.allSatisfy((line) -> assertThat(line).contains("WARN",
					"The lock table " + table + " has no column waited, by which a release notifies only when "
							+ "somebody waits for the lock, so releases notify every time",
					"ALTER TABLE " + table + " ADD COLUMN IF NOT EXISTS waited BOOLEAN NOT NULL DEFAULT FALSE"));
		// Once the column is added, the same backends mark and notify only what is waited
		// for.
		holderBackend.createSchema();
		waiterBackend.createSchema();
		assertThat(handOffMillis(newLock(holderBackend), waiterBackend, "marked")).isLessThan(WOKEN_WITHIN_MILLIS);
		try (HikariDataSource listening = database.newDataSource(); Connection connection = listening.getConnection()) {
			listen(connection, table);
			newLock(holderBackend).tryAcquire("alone again", Duration.ZERO, null).orElseThrow().close();
			assertThat(notifiedKeysUntilSentinel(connection, table)).doesNotContain("alone again");
		}
	}

	@Test
	void createSchemaAddsTheWaitedColumnToAnOlderTable(CapturedOutput output) throws Exception {
		String table = tableWithoutWaitedColumn();
		JdbcLockBackend backend = backend(database.newDataSource(), table);
		backend.createSchema();
		assertThat(database.jdbcTemplate()
			.queryForList("SELECT column_name FROM information_schema.columns WHERE table_name = ?", String.class,
					table))
			.contains("waited");
		String key = "added." + System.nanoTime();
		try (HikariDataSource listening = database.newDataSource(); Connection connection = listening.getConnection()) {
			listen(connection, table);
			newLock(backend).tryAcquire(key, Duration.ZERO, null).orElseThrow().close();
			assertThat(notifiedKeysUntilSentinel(connection, table)).doesNotContain(key);
		}
		assertThat(LogLines.containing(output, "has no column waited")).isEmpty();
	}

	@Test
	void createSchemaByAUserWhoDoesNotOwnTheTablesSucceedsWhenTheColumnIsThere() throws Exception {
		// PostgreSQL asks for the table's owner for any ALTER TABLE, even one with
		// nothing
		// to do: an application's user that may only use the tables must still start.
		String role = "locker_" + System.nanoTime();
		JdbcTemplate admin = database.jdbcTemplate();
		admin.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'locker'");
		try {
			admin.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON distributelock, distributelock_q, distributelock_h, "
					+ "distributelock_p TO " + role);
			admin.execute("GRANT USAGE, SELECT, UPDATE ON SEQUENCE distributelock_seq TO " + role);
			JdbcLockBackend backend = backend(database.newDataSource((config) -> {
				config.setUsername(role);
				config.setPassword("locker");
			}));
			backend.createSchema();
			newLock(backend).tryAcquire("not.owner." + System.nanoTime(), Duration.ZERO, null).orElseThrow().close();
		}
		finally {
			this.closeables.close();
			admin.execute("DROP OWNED BY " + role);
			admin.execute("DROP ROLE " + role);
		}
	}

	@Test
	void channelOfALongTableNameIsShortenedToAnIdentifier() {
		String table = "s".repeat(59) + "." + "t".repeat(59);
		String channel = PostgresReleaseListener.channel(table);
		assertThat(channel).hasSize(PostgresReleaseListener.LONGEST_CHANNEL)
			.startsWith("s".repeat(54))
			.isEqualTo(PostgresReleaseListener.channel(table))
			.isNotEqualTo(PostgresReleaseListener.channel("s".repeat(59) + "." + "t".repeat(58) + "u"));
		assertThat(PostgresReleaseListener.channel("locks.distributelock")).isEqualTo("locks.distributelock");
	}

	/**
	 * The holder takes the key, the waiter waits for it in the store, the holder
	 * releases: how long after the release the waiter had it.
	 */
	/** A caller of {@code waiter} that waits up to 2 minutes for {@code key}. */
	private CompletableFuture<Optional<LockHandle>> waitFor(DefaultDistributeLock waiter, String key) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return waiter.tryAcquire(key, Duration.ofMinutes(2), null);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, this.callers);
	}

	private long handOffMillis(DefaultDistributeLock holder, JdbcLockBackend waiterBackend, String key)
			throws Exception {
		CountingLockBackend counting = CountingLockBackend.of(waiterBackend);
		DefaultDistributeLock waiter = newLock(counting);
		LockHandle held = holder.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = waitFor(waiter, key);
		assertThat(counting.waiting.await(20, TimeUnit.SECONDS)).isTrue();
		long released = System.nanoTime();
		held.close();
		Optional<LockHandle> acquired = waiting.get(3, TimeUnit.MINUTES);
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
		assertThat(acquired).isPresent();
		acquired.get().close();
		return millis;
	}

	/** A lock table as created before the waited column existed. */
	private static String tableWithoutWaitedColumn() {
		String table = "unmarked_" + System.nanoTime();
		database.jdbcTemplate()
			.execute("CREATE TABLE " + table + " (lock_key VARCHAR(512) NOT NULL PRIMARY KEY, "
					+ "owner VARCHAR(255) NOT NULL, fencing_token BIGINT NOT NULL, "
					+ "expires_at TIMESTAMP WITH TIME ZONE NOT NULL, acquired_at TIMESTAMP WITH TIME ZONE NOT NULL)");
		database.jdbcTemplate().execute("CREATE SEQUENCE " + table + "_seq");
		return table;
	}

	private static void listen(Connection connection, String table) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute("LISTEN \"" + PostgresReleaseListener.channel(table) + "\"");
		}
	}

	/**
	 * The payloads {@code connection} was notified of on the table's channel before a
	 * sentinel notified after them: what came before it, in commit order.
	 */
	private static List<String> notifiedKeysUntilSentinel(Connection connection, String table) throws SQLException {
		String sentinel = "sentinel." + System.nanoTime();
		database.jdbcTemplate()
			.queryForList("SELECT pg_notify(?, ?)", PostgresReleaseListener.channel(table), sentinel);
		List<String> keys = new ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
		while (System.nanoTime() < deadline) {
			PGNotification[] notifications = connection.unwrap(PGConnection.class).getNotifications(500);
			for (PGNotification notification : (notifications != null) ? notifications : new PGNotification[0]) {
				if (notification.getParameter().equals(sentinel)) {
					return keys;
				}
				keys.add(notification.getParameter());
			}
		}
		throw new AssertionError("The sentinel notification did not come within 20 s; came before: " + keys);
	}

	/** The backend's listener, once it listens. */
	private static PostgresReleaseListener listening(JdbcLockBackend backend) {
		PostgresReleaseListener listener = backend.releaseListener();
		assertThat(listener).isNotNull();
		await().atMost(Duration.ofSeconds(20)).until(listener::listening);
		return listener;
	}

	private static void terminate(int pid) {
		Boolean terminated = database.jdbcTemplate()
			.queryForObject("SELECT pg_terminate_backend(?)", Boolean.class, pid);
		assertThat(terminated).isTrue();
	}

	private JdbcLockBackend backend(DataSource dataSource) {
		return backend(dataSource, JdbcLockBackend.DEFAULT_TABLE_NAME);
	}

	private JdbcLockBackend backend(DataSource dataSource, String table) {
		if (dataSource instanceof AutoCloseable closeable) {
			track(closeable);
		}
		JdbcLockBackend backend = track(new JdbcLockBackend(dataSource, table, null, Clock.systemUTC(),
				JdbcLockBackend.DEFAULT_RELEASED_ROW_RETENTION, true));
		assertThat(backend.notifiesReleases()).isTrue();
		return backend;
	}

	private DefaultDistributeLock newLock(io.github.distributelock.core.LockBackend backend) {
		return track(new DefaultDistributeLock(backend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false,
				LockEventListener.NONE, null));
	}

	private <T extends AutoCloseable> T track(T closeable) {
		this.closeables.add(closeable);
		return closeable;
	}

	/**
	 * A pool whose connections the listener's thread can be refused, so that it stays
	 * down while the lock statements go on.
	 */
	private static final class ListenerBlocker extends DelegatingDataSource implements AutoCloseable {

		volatile boolean refuseListener;

		ListenerBlocker(DataSource pool) {
			super(pool);
		}

		@Override
		public Connection getConnection() throws SQLException {
			if (this.refuseListener && Thread.currentThread().getName().equals("distributelock-jdbc-listen")) {
				throw new SQLException("refused by the test");
			}
			return super.getConnection();
		}

		@Override
		public void close() throws Exception {
			((AutoCloseable) obtainTargetDataSource()).close();
		}

	}

}
