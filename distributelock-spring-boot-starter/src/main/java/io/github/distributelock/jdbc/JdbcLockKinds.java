package io.github.distributelock.jdbc;

import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.jdbc.JdbcKindStatements.KeyState;
import io.github.distributelock.jdbc.JdbcKindStatements.Session;
import io.github.distributelock.jdbc.JdbcRowLockWaits.RowWait;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.jdbc.BadSqlGrammarException;

/**
 * The fair, read/write and permit locks on the lock table: what each attempt, renewal and
 * release does, in one short transaction on a connection of its own that begins by
 * locking the key's row of the lock table. That row stays the lock of the key for every
 * kind: a fair holder owns it as a plain holder does, and readers, a writer or permit
 * holders hold it under a marker ({@link JdbcKindMarkers}) for as long as the longest
 * lease among them. So plain holders and the other kinds exclude each other without any
 * change to the plain statements; and the queue, the readers and writer, and the permit
 * slots of a key (the tables named after the lock table with {@code _q}, {@code _h} and
 * {@code _p}) only change under its row lock, one operation after the other; but for a
 * fair waiter's leave of the queue on PostgreSQL and H2, which needs no row lock (see
 * {@link #release(Claim, String)}).
 */
final class JdbcLockKinds {

	/** How long a queued waiter keeps its place after its last attempt. */
	static final Duration WAITER_LEASE = LockKind.WAITER_LEASE;

	private final JdbcLockRepository repository;

	private final JdbcKindStatements sql;

	private final long waiterLeaseMillis;

	private final JdbcKindTables tables;

	/**
	 * The kinds on the tables of {@code repository}.
	 * @param repository the lock table
	 * @param waiterLease how long a waiter keeps its place after its last attempt:
	 * {@link #WAITER_LEASE}, or shorter in a test whose waiter crashes
	 */
	JdbcLockKinds(JdbcLockRepository repository, Duration waiterLease) {
		this.repository = repository;
		this.sql = new JdbcKindStatements(repository.dialect(), repository.tableName(), repository.rowWaits());
		this.waiterLeaseMillis = Math.max(1, waiterLease.toMillis());
		this.tables = new JdbcKindTables(repository.dialect(), repository.tableName());
	}

	/**
	 * One attempt for a claim of any kind but the plain exclusive one, made again at once
	 * if it races another statement ({@link JdbcRacedAttempts}).
	 */
	AcquireResult acquire(Claim claim, long leaseMillis) {
		return JdbcRacedAttempts
			.attempt(claim,
					() -> inTransaction(claim, "acquire", (session) -> attempt(
							session.with("lease_ms", leaseMillis).with("waiter_lease_ms", this.waiterLeaseMillis),
							claim)));
	}

	private AcquireResult attempt(Session session, Claim claim) throws SQLException {
		session.update(this.sql.wordInsert);
		if (session.query(this.sql.wordLock, (row) -> Boolean.TRUE).isEmpty()) {
			// The purge of an instance deleted the row, free for longer than the
			// retention, after the insert found it (PostgreSQL's insert does not lock
			// a row it finds): taken without its row, the key would be taken by the
			// next attempt of any kind too. The attempt is made again, and inserts the
			// row.
			throw new CannotAcquireLockException("The row of lock '" + claim.key() + "' was deleted by the purge of "
					+ "free rows before this attempt could lock it");
		}
		KeyState state = session.state(this.sql.state);
		requireSameFamily(claim, state.holder());
		return switch (claim.kind().type()) {
			case FAIR, WRITE -> exclusive(session, claim, state);
			case READ -> read(session, state);
			case PERMITS -> permit(session, claim.kind().permits(), state);
			case EXCLUSIVE -> throw new IllegalArgumentException("The plain exclusive lock has statements of its own");
		};
	}

	/**
	 * A fair or write attempt: taken by the head of the live queue when the key's row is
	 * free (and, for a writer, no reader is left); otherwise the owner is queued, or its
	 * place refreshed.
	 */
	private AcquireResult exclusive(Session session, Claim claim, KeyState state) throws SQLException {
		boolean write = claim.kind().type() == LockKind.Type.WRITE;
		if (!admits(claim.kind(), state)) {
			if (state.arrival() != null) {
				session.update(this.sql.waiterRefresh);
			}
			else {
				long arrival = session.token(this.sql.token);
				session.with("kind", write ? "write" : "fair")
					.with("arrival", arrival)
					.updateAll(this.sql.waiterEnqueue);
			}
			return AcquireResult.heldByAnother(lease(state.remainingMillis()));
		}
		long token = session.token(this.sql.token);
		session.with("token", token).with("holder", write ? JdbcKindMarkers.WRITER : claim.owner());
		if (write) {
			// The writer's own row first, then the key's from it: see read().
			session.with("kind", "write").updateAll(this.sql.holderInsert);
			session.update(this.sql.wordTakeHolders);
		}
		else {
			session.update(this.sql.wordTake);
		}
		if (state.arrival() != null) {
			session.update(this.sql.waiterLeave);
		}
		return AcquireResult.acquired(token);
	}

	/**
	 * A read attempt: joins the readers unless a writer holds the key or waits for it.
	 * Refused, a reader leaves nothing in the tables (readers never queue), and its
	 * caller nothing to take out when it gives up.
	 */
	private AcquireResult read(Session session, KeyState state) throws SQLException {
		if (!admits(LockKind.READ, state)) {
			return AcquireResult
				.heldByAnother(JdbcKindMarkers.WRITER.equals(state.holder()) ? lease(state.remainingMillis()) : null)
				.notQueued();
		}
		long token = session.token(this.sql.token);
		session.with("token", token).with("holder", JdbcKindMarkers.READERS).with("kind", "read");
		// The reader's own row first, then the key's, whose lease is read from the live
		// holders' rows: a lease of its own, on databases that read the clock anew for
		// each statement, either ended before the holder's and left the key free to any
		// attempt, or outlasted every holder's (word-take-holders.sql).
		session.updateAll(this.sql.holderInsert);
		session.update((state.holder() == null) ? this.sql.wordTakeHolders : this.sql.wordJoinHolders);
		return AcquireResult.acquired(token);
	}

	/**
	 * A permit attempt: takes the lowest free slot of 0 to N-1, if there is one; refused,
	 * it leaves nothing in the tables (permit callers never queue).
	 */
	private AcquireResult permit(Session session, int permits, KeyState state) throws SQLException {
		List<PermitSlot> slots = session.query(this.sql.permitSlots,
				(row) -> new PermitSlot(row.getLong("slot"), row.getInt("mine") == 1, row.getLong("remaining_ms")));
		List<PermitSlot> held = slots.stream().filter((slot) -> !slot.mine() && slot.remainingMillis() > 0).toList();
		if (held.size() >= permits) {
			long soonest = held.stream().mapToLong(PermitSlot::remainingMillis).min().orElse(0);
			return AcquireResult.heldByAnother(lease(soonest)).notQueued();
		}
		Set<Long> taken = new HashSet<>();
		held.forEach((slot) -> taken.add(slot.slot()));
		int slot = 0;
		while (taken.contains((long) slot)) {
			slot++;
		}
		for (PermitSlot row : slots) {
			if (row.mine() || row.slot() == slot) {
				// This owner's earlier slot, or the slot to take whose lease ran out: one
				// by one by its primary key, as a delete by owner locked gaps on MariaDB
				// and MySQL that attempts on neighbouring keys deadlocked over.
				session.with("free_slot", row.slot()).update(this.sql.permitFree);
			}
		}
		long token = session.token(this.sql.token);
		session.with("token", token).with("slot", slot).with("holder", JdbcKindMarkers.permits(permits));
		session.updateAll(this.sql.permitTake);
		// The key's row from the live slots' rows, as for a reader (see read()).
		session.update((state.holder() == null) ? this.sql.wordTakePermits : this.sql.wordJoinPermits);
		return AcquireResult.acquired(token);
	}

	/**
	 * Whether a claim may take the key as a statement sees it; the attempt decides, under
	 * the key's row lock.
	 */
	static boolean admits(LockKind kind, KeyState state) {
		String holder = state.holder();
		return switch (kind.type()) {
			case FAIR -> holder == null && state.first();
			case WRITE -> holder == null && state.holders() == 0 && state.first();
			case READ -> !JdbcKindMarkers.WRITER.equals(holder) && state.writers() == 0;
			case PERMITS -> holder == null || state.permits() < kind.permits();
			case EXCLUSIVE -> holder == null;
		};
	}

	boolean renew(Claim claim, long leaseMillis) {
		if (JdbcKindMarkers.isReserved(claim.owner())) {
			return false;
		}
		LockKind kind = claim.kind();
		if (kind.type() == LockKind.Type.FAIR) {
			// A fair holder owns the key's row as a plain one does.
			return this.repository.renew(claim.key(), claim.owner(), leaseMillis);
		}
		boolean permit = kind.type() == LockKind.Type.PERMITS;
		String marker = JdbcKindMarkers.of(kind);
		try {
			return JdbcRacedAttempts.renewalOrRelease(claim, "renewal",
					() -> inTransaction(claim, "renew", (session) -> renew(session, permit, marker, leaseMillis)));
		}
		catch (KeyRowLapsed ex) {
			// Rolled back, so that the holder's own row does not outlive the key's.
			return false;
		}
	}

	private boolean renew(Session session, boolean permit, String marker, long leaseMillis) throws SQLException {
		session.query(this.sql.wordLock, (row) -> Boolean.TRUE);
		session.with("lease_ms", leaseMillis).with("holder", marker);
		if (session.update(permit ? this.sql.permitRenew : this.sql.holderRenew) != 1) {
			return false;
		}
		// The key's row lasts as long as the longest lease of its holders: longer
		// for a renewal, shorter for the cut of a minimum hold, which would
		// otherwise keep the key for the whole lease it had.
		if (session.update(permit ? this.sql.permitsShrink : this.sql.holdersShrink) != 1
				&& !marker.equals(session.state(this.sql.state).holder())) {
			// The key's row was not extended and is not held under this
			// kind's marker: its lease ended between the statements (each
			// reads the clock anew on PostgreSQL, MariaDB and MySQL), or
			// another owner took it after it ended, so any attempt may take
			// it. Read back, as a driver counting changed rows only counts
			// none where another holder's longer lease kept the row's.
			throw new KeyRowLapsed();
		}
		return true;
	}

	/**
	 * Releases a holder of the claim's kind, or takes a waiting claim out of the queue.
	 * @param channel where a release that frees the key, or shortens its lease, notifies
	 * (PostgreSQL), as a plain release does: plain waiters of the key may wait for that
	 * notification; or {@code null} if releases notify nobody
	 */
	boolean release(Claim claim, @Nullable String channel) {
		if (JdbcKindMarkers.isReserved(claim.owner()) || claim.kind().type() == LockKind.Type.EXCLUSIVE) {
			// A marker as a plain owner: refused by every attempt, so never stored.
			return false;
		}
		return JdbcRacedAttempts.renewalOrRelease(claim, "release", () -> releaseOnce(claim, channel));
	}

	private boolean releaseOnce(Claim claim, @Nullable String channel) {
		if (channel == null || this.sql.releaseNotify == null) {
			return inTransaction(claim, "release", (session) -> release(session, claim.kind()));
		}
		String task = "release " + claim.kind().withArticle() + " lock";
		RowWait wait = this.repository.rowWaits().bound(claim.deadline());
		return this.tables.explained(() -> this.repository.onConnectionMarking(task, (connection, marked) -> {
			Session session = new Session(this.repository, connection, claim.key(), claim.owner(), wait);
			boolean released;
			try {
				released = this.repository.rowWaits()
					.around(connection, wait, claim.key(), () -> release(session, claim.kind()));
			}
			catch (SQLException ex) {
				if (WaitedMarks.undefinedColumn(ex)) {
					// A column of the kinds' tables: these statements never read waited,
					// whose absence alone switches the table to notifying every release.
					throw new BadSqlGrammarException(task, "kinds release", ex);
				}
				throw ex;
			}
			LockStatement notify = marked ? this.sql.releaseNotifyWaited : this.sql.releaseNotify;
			if (released && notify != null) {
				session.with("channel", channel).query(notify, (row) -> Boolean.TRUE);
			}
			return released;
		}));
	}

	private boolean release(Session session, LockKind kind) throws SQLException {
		if (kind.type() == LockKind.Type.FAIR) {
			// Frees the key's row: the notification needs no lease to compare.
			session.with("held_until", null);
			boolean released = session.update(this.sql.wordRelease) == 1;
			// A waiter that does not hold the key gets here without the key's row lock
			// on PostgreSQL and H2 (their UPDATE locks no row it does not change), and
			// needs none: the delete takes out this owner's queue row alone, which no
			// operation of another owner writes; every decision on the queue is one
			// statement (state.sql) under the row lock, which sees the row or not, so the
			// leave counts as after or before that operation; and the queue only orders
			// attempts, the key's row, which this leave never writes, excludes holders
			// (JdbcFairWaiterLeavingTests). Without the row lock, the leave is not held
			// up by a transaction stalled on the key's row.
			session.update(this.sql.waiterLeave);
			return released;
		}
		// The row's lease before this release: one that shortens it notifies as one that
		// frees it does, or a plain waiter would learn of the shorter lease only at its
		// next check (up to a second later), after the lease may have ended.
		List<Timestamp> heldUntil = session.query(this.sql.wordLock, (row) -> row.getTimestamp("expires_at"));
		session.with("held_until", heldUntil.isEmpty() ? null : heldUntil.get(0));
		boolean permit = kind.type() == LockKind.Type.PERMITS;
		boolean released = session.updateAll(permit ? this.sql.permitRelease : this.sql.holderRelease) == 1;
		if (kind.type() == LockKind.Type.WRITE) {
			session.update(this.sql.waiterLeave);
		}
		if (released) {
			session.with("holder", JdbcKindMarkers.of(kind))
				.update(permit ? this.sql.permitsShrink : this.sql.holdersShrink);
		}
		return released;
	}

	/** Reads the key as a waiter's poll sees it, in one statement, locking nothing. */
	KeyState state(Claim claim) {
		return this.tables.explained(() -> this.repository.onConnection(this.sql.state.name(), false,
				(connection) -> new Session(this.repository, connection, claim.key(), claim.owner(), null)
					.state(this.sql.state)));
	}

	/**
	 * Fails an attempt on a key whose row is held as another family of lock (exclusive,
	 * read/write, or permits with another count): waiting could never help.
	 */
	private void requireSameFamily(Claim claim, @Nullable String holder) {
		if (holder != null && !JdbcKindMarkers.sameFamily(claim.kind(), holder)) {
			throw JdbcKindMarkers.conflict(claim.key(), claim.kind(), holder, this.repository.tableName());
		}
	}

	private static @Nullable Duration lease(@Nullable Long remainingMillis) {
		return (remainingMillis != null) ? JdbcLockBackend.leaseDuration(remainingMillis) : null;
	}

	/**
	 * Runs an operation in one transaction, at {@code READ COMMITTED} on MariaDB and
	 * MySQL ({@link JdbcKindStatements#begin}); one that a caller waits for (an attempt,
	 * a waiter leaving the queue) waits for the key's row until the caller's deadline at
	 * most, and is then rolled back.
	 */
	private <T> T inTransaction(Claim claim, String operation, SessionWork<T> work) {
		try {
			return inTransactionOnce(claim, operation, work);
		}
		catch (RuntimeException ex) {
			if (!this.sql.refusedReadCommitted(ex, claim.key())) {
				throw ex;
			}
			return inTransactionOnce(claim, operation, work);
		}
	}

	private <T> T inTransactionOnce(Claim claim, String operation, SessionWork<T> work) {
		RowWait wait = this.repository.rowWaits().bound(claim.deadline());
		return this.tables.explained(() -> this.repository
			.onConnection(operation + " " + claim.kind().withArticle() + " lock", true, (connection) -> {
				this.sql.begin(connection);
				return this.repository.rowWaits()
					.around(connection, wait, claim.key(),
							() -> work.run(new Session(this.repository, connection, claim.key(), claim.owner(), wait)));
			}));
	}

	/**
	 * A permit slot of the key as an attempt read it: whether this owner has it, and how
	 * long its lease still runs (zero or less once it ran out).
	 */
	private record PermitSlot(long slot, boolean mine, long remainingMillis) {
	}

	/**
	 * Ends a renewal whose holder row was extended while the key's row was not, rolling
	 * the extension back.
	 */
	private static final class KeyRowLapsed extends RuntimeException {

		KeyRowLapsed() {
			super(null, null, false, false);
		}

	}

	@FunctionalInterface
	private interface SessionWork<T> {

		T run(Session session) throws SQLException;

	}

}
