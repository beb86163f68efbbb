package io.github.distributelock.jdbc;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A reader's, writer's or permit holder's attempt writes two leases under the key's row
 * lock: its own row (in the table of readers and writers, or of permit slots) and the
 * key's row of the lock table, which must last as long as the longest lease of its
 * holders. PostgreSQL, MariaDB and MySQL read the clock anew for each statement, so when
 * the attempt's client stalls between the two writes (while the row lock keeps every
 * other statement of the key waiting), the lease written first is the shorter one. If
 * that is the key's row, the key is free to any attempt while the holder's own row still
 * runs: a reader is let in next to a writer, and the holder's release answers that it
 * held the lock throughout.
 */
class JdbcKindAttemptStalledBetweenItsWritesTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	private static final Duration LEASE = Duration.ofSeconds(2);

	@OnEachDatabase
	void aStalledReadersReleaseAfterAPlainOwnerTookTheKeyAnswersNotHeld(JdbcTestDatabase database) throws Exception {
		assertAReleaseAfterAPlainOwnerTookTheKeyAnswersNotHeld(database, LockKind.READ);
	}

	@OnEachDatabase
	void aStalledWritersReleaseAfterAPlainOwnerTookTheKeyAnswersNotHeld(JdbcTestDatabase database) throws Exception {
		assertAReleaseAfterAPlainOwnerTookTheKeyAnswersNotHeld(database, LockKind.WRITE);
	}

	@OnEachDatabase
	void aStalledPermitHoldersReleaseAfterAPlainOwnerTookTheKeyAnswersNotHeld(JdbcTestDatabase database)
			throws Exception {
		assertAReleaseAfterAPlainOwnerTookTheKeyAnswersNotHeld(database, LockKind.permits(2));
	}

	@OnEachDatabase
	void noReaderIsLetInWhileTheRowOfAStalledWriterRuns(JdbcTestDatabase database) throws Exception {
		String key = "stalled-writer." + System.nanoTime();
		try (HikariDataSource writerData = database.newDataSource();
				HikariDataSource readerData = database.newDataSource();
				JdbcLockBackend readers = new JdbcLockBackend(readerData)) {
			AtomicBoolean stalled = new AtomicBoolean();
			BeforeStatement stall = stallBetweenTheWrites(writerData, database, stalled);
			try (JdbcLockBackend writers = new JdbcLockBackend(stall)) {
				stall.armed.set(true);
				assertThat(Backends
					.join(writers.tryAcquire(new LockBackend.Claim(key, "writer", null, LockKind.WRITE), LEASE))
					.acquired()).isTrue();
				assertThat(stalled).as("the attempt stalled between its writes").isTrue();
				boolean readerIn = Backends
					.join(readers.tryAcquire(new LockBackend.Claim(key, "reader", null, LockKind.READ),
							Duration.ofSeconds(30)))
					.acquired();
				Integer writerRows = database.jdbcTemplate()
					.queryForObject("SELECT COUNT(*) FROM " + TABLE + "_h WHERE lock_key = ? AND owner = ? AND "
							+ "expires_at > " + database.now(), Integer.class, key, "writer");
				assertThat(readerIn && writerRows != null && writerRows > 0)
					.as("a reader let in while the writer's row still runs")
					.isFalse();
			}
		}
	}

	private void assertAReleaseAfterAPlainOwnerTookTheKeyAnswersNotHeld(JdbcTestDatabase database, LockKind kind)
			throws Exception {
		String key = "stalled-attempt." + System.nanoTime();
		try (HikariDataSource holderData = database.newDataSource();
				HikariDataSource otherData = database.newDataSource();
				JdbcLockBackend other = new JdbcLockBackend(otherData)) {
			AtomicBoolean stalled = new AtomicBoolean();
			BeforeStatement stall = stallBetweenTheWrites(holderData, database, stalled);
			try (JdbcLockBackend holder = new JdbcLockBackend(stall)) {
				LockBackend.Claim claim = new LockBackend.Claim(key, "holder", null, kind);
				stall.armed.set(true);
				assertThat(Backends.join(holder.tryAcquire(claim, LEASE)).acquired()).isTrue();
				assertThat(stalled).as("the attempt stalled between its writes").isTrue();
				boolean plainTookIt = Backends
					.join(other.tryAcquire(new LockBackend.Claim(key, "plain", null, LockKind.EXCLUSIVE),
							Duration.ofSeconds(30)))
					.acquired();
				boolean released = Backends.join(holder.release(claim));
				// A plain holder's release answers false once another owner took its row.
				assertThat(plainTookIt && released)
					.as("the plain owner took the key and the " + kind.tag() + " holder's release answered held")
					.isFalse();
			}
		}
	}

	/**
	 * A pool that, once armed, holds an attempt back after the first of its two writes of
	 * a lease (its own row, or the key's row of the lock table) until that lease has
	 * ended as the database sees it, reading committed rows only and locking nothing: the
	 * attempt's transaction keeps the key's row locked meanwhile.
	 */
	private static BeforeStatement stallBetweenTheWrites(DataSource pool, JdbcTestDatabase database,
			AtomicBoolean stalled) {
		AtomicBoolean wroteOne = new AtomicBoolean();
		return new BeforeStatement(pool, (sql) -> writesALease(sql) && !wroteOne.compareAndSet(false, true), () -> {
			Instant leaseEnded = now(database).plus(LEASE);
			await().atMost(Duration.ofSeconds(20)).until(() -> now(database).isAfter(leaseEnded));
			stalled.set(true);
		});
	}

	private static boolean writesALease(String sql) {
		return sql.startsWith("UPDATE " + TABLE + " SET") || sql.startsWith("INSERT INTO " + TABLE + "_h ")
				|| sql.startsWith("INSERT INTO " + TABLE + "_p ");
	}

	private static Instant now(JdbcTestDatabase database) {
		Timestamp now = database.jdbcTemplate().queryForObject("SELECT " + database.now(), Timestamp.class);
		assertThat(now).isNotNull();
		return now.toInstant();
	}

}
