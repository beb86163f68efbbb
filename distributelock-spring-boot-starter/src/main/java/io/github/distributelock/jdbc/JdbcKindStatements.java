package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.distributelock.core.LockKind;
import io.github.distributelock.jdbc.JdbcRowLockWaits.Bounded;
import io.github.distributelock.jdbc.JdbcRowLockWaits.RowWait;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The statements of the fair, read/write and permit locks of one dialect, read once from
 * {@code io/github/distributelock/jdbc/<dialect>/kinds/*.sql}, and the way one operation
 * runs them: in order, on the one connection (and transaction) of that operation.
 */
final class JdbcKindStatements {

	private static final Log logger = LogFactory.getLog(JdbcKindStatements.class);

	final Bounded wordInsert;

	final Bounded wordLock;

	final LockStatement state;

	final List<LockStatement> token;

	final LockStatement wordTake;

	final LockStatement wordTakeHolders;

	final LockStatement wordJoinHolders;

	final LockStatement wordTakePermits;

	final LockStatement wordJoinPermits;

	final Bounded wordRelease;

	final List<LockStatement> waiterEnqueue;

	final LockStatement waiterRefresh;

	final LockStatement waiterLeave;

	final List<LockStatement> holderInsert;

	final LockStatement holderRenew;

	final List<LockStatement> holderRelease;

	final LockStatement holdersShrink;

	final LockStatement permitSlots;

	final LockStatement permitFree;

	final List<LockStatement> permitTake;

	final LockStatement permitRenew;

	final List<LockStatement> permitRelease;

	final LockStatement permitsShrink;

	/**
	 * Notifies a release that freed the key (PostgreSQL only, else {@code null}), on a
	 * lock table without the {@code waited} column.
	 */
	final @Nullable LockStatement releaseNotify;

	/**
	 * As {@link #releaseNotify}, only when a plain attempt marked the row as waited for.
	 */
	final @Nullable LockStatement releaseNotifyWaited;

	/**
	 * Runs the transaction of an operation at {@code READ COMMITTED} (MariaDB and MySQL,
	 * whose default {@code REPEATABLE READ} locks gaps that neighbouring keys insert
	 * into), else {@code null}.
	 */
	private final @Nullable LockStatement readCommitted;

	/**
	 * Whether the database refused a write at {@code READ COMMITTED}: its binary log is
	 * statement-based, which InnoDB does not write at that level.
	 */
	private volatile boolean readCommittedRefused;

	/**
	 * The statements of {@code dialect} on {@code tableName}; the ones that first lock
	 * the key's row with the variants of {@code rowWaits} that bound that wait.
	 */
	JdbcKindStatements(JdbcLockDialect dialect, String tableName, JdbcRowLockWaits rowWaits) {
		this.wordInsert = rowWaits.bounded("kinds/word-insert.sql", one(dialect, "word-insert.sql", tableName));
		this.wordLock = rowWaits.bounded("kinds/word-lock.sql", one(dialect, "word-lock.sql", tableName));
		this.state = one(dialect, "state.sql", tableName);
		this.token = all(dialect, "token.sql", tableName);
		this.wordTake = one(dialect, "word-take.sql", tableName);
		this.wordTakeHolders = one(dialect, "word-take-holders.sql", tableName);
		this.wordJoinHolders = one(dialect, "word-join-holders.sql", tableName);
		this.wordTakePermits = one(dialect, "word-take-permits.sql", tableName);
		this.wordJoinPermits = one(dialect, "word-join-permits.sql", tableName);
		this.wordRelease = rowWaits.bounded("kinds/word-release.sql", one(dialect, "word-release.sql", tableName));
		this.waiterEnqueue = all(dialect, "waiter-enqueue.sql", tableName);
		this.waiterRefresh = one(dialect, "waiter-refresh.sql", tableName);
		this.waiterLeave = one(dialect, "waiter-leave.sql", tableName);
		this.holderInsert = all(dialect, "holder-insert.sql", tableName);
		this.holderRenew = one(dialect, "holder-renew.sql", tableName);
		this.holderRelease = all(dialect, "holder-release.sql", tableName);
		this.holdersShrink = one(dialect, "holders-shrink.sql", tableName);
		this.permitSlots = one(dialect, "permit-slots.sql", tableName);
		this.permitFree = one(dialect, "permit-free.sql", tableName);
		this.permitTake = all(dialect, "permit-take.sql", tableName);
		this.permitRenew = one(dialect, "permit-renew.sql", tableName);
		this.permitRelease = all(dialect, "permit-release.sql", tableName);
		this.permitsShrink = one(dialect, "permits-shrink.sql", tableName);
		this.releaseNotify = optional(dialect, "release-notify.sql", tableName);
		this.releaseNotifyWaited = optional(dialect, "release-notify-waited.sql", tableName);
		this.readCommitted = optional(dialect, "read-committed.sql", tableName);
	}

	/**
	 * Begins the transaction of an operation on {@code connection}, before its first
	 * statement: at {@code READ COMMITTED} where the dialect asks for it (for that
	 * transaction only, so the pooled connection keeps its isolation).
	 */
	void begin(Connection connection) throws SQLException {
		if (this.readCommitted != null && !this.readCommittedRefused) {
			try (Statement statement = connection.createStatement()) {
				statement.execute(this.readCommitted.sql());
			}
		}
	}

	/**
	 * Whether {@code failure} is the database's refusal to write at
	 * {@code READ COMMITTED} (error 1665, {@code binlog_format=STATEMENT}): the
	 * operations then run at the session's own isolation, where neighbouring keys may
	 * deadlock again, rather than fail, and the operation that failed, which changed
	 * nothing, is made again.
	 */
	boolean refusedReadCommitted(RuntimeException failure, String key) {
		if (this.readCommitted == null || !statementBasedBinaryLog(failure)) {
			return false;
		}
		if (!this.readCommittedRefused) {
			this.readCommittedRefused = true;
			logger.warn("The database refused a write of lock '" + key + "' at READ COMMITTED, as its binary log is "
					+ "statement-based (binlog_format=STATEMENT): the fair, read/write and permit locks run at the "
					+ "session's isolation instead, where attempts on neighbouring keys may deadlock. Set "
					+ "binlog_format to ROW or MIXED. " + failure.getMessage());
		}
		return true;
	}

	private static boolean statementBasedBinaryLog(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && sql.getErrorCode() == 1665) {
				return true;
			}
		}
		return false;
	}

	private static @Nullable LockStatement optional(JdbcLockDialect dialect, String file, String tableName) {
		return LockStatement.exists(dialect, "kinds/" + file) ? one(dialect, file, tableName) : null;
	}

	private static LockStatement one(JdbcLockDialect dialect, String file, String tableName) {
		return LockStatement.load(dialect, "kinds/" + file, tableName);
	}

	private static List<LockStatement> all(JdbcLockDialect dialect, String file, String tableName) {
		return LockStatement.loadAll(dialect, "kinds/" + file, tableName);
	}

	/**
	 * The statements of one operation on its connection, with the values every statement
	 * of it may name ({@code :key}, {@code :owner}, ...).
	 */
	static final class Session {

		private final JdbcLockRepository repository;

		private final Connection connection;

		private final Map<String, Object> values = new HashMap<>();

		/** How long a statement that locks the key's row may wait for it. */
		private final @Nullable RowWait wait;

		Session(JdbcLockRepository repository, Connection connection, String key, String owner,
				@Nullable RowWait wait) {
			this.repository = repository;
			this.connection = connection;
			this.wait = wait;
			this.values.put("key", key);
			this.values.put("owner", owner);
			this.values.put("lock_wait", (wait != null) ? wait.text() : "");
		}

		/** Sets a value for the statements that follow. */
		Session with(String name, @Nullable Object value) {
			this.values.put(name, value);
			return this;
		}

		/** Runs a statement that changes rows. */
		int update(LockStatement statement) throws SQLException {
			try (PreparedStatement ps = prepare(statement)) {
				return this.repository.timed(this.connection, ps, PreparedStatement::executeUpdate);
			}
		}

		/** Runs a statement that locks the key's row, waiting for it as bounded. */
		int update(Bounded statement) throws SQLException {
			return update(statement.waiting(this.wait));
		}

		/** Runs a query that locks the key's row, waiting for it as bounded. */
		<T> List<T> query(Bounded statement, JdbcLockRepository.RowReader<T> reader) throws SQLException {
			return query(statement.waiting(this.wait), reader);
		}

		/** Runs statements that change rows, in order. */
		int updateAll(List<LockStatement> statements) throws SQLException {
			int first = -1;
			for (LockStatement statement : statements) {
				int count = update(statement);
				first = (first < 0) ? count : first;
			}
			return first;
		}

		/** Runs a query and reads each row. */
		<T> List<T> query(LockStatement statement, JdbcLockRepository.RowReader<T> reader) throws SQLException {
			List<T> rows = new ArrayList<>();
			try (PreparedStatement ps = prepare(statement);
					ResultSet rs = this.repository.timed(this.connection, ps, PreparedStatement::executeQuery)) {
				while (rs.next()) {
					rows.add(reader.read(rs));
				}
			}
			return rows;
		}

		/** Draws a fencing token (or arrival number) from the lock table's sequence. */
		long token(List<LockStatement> draw) throws SQLException {
			updateAll(draw.subList(0, draw.size() - 1));
			List<Long> token = query(draw.get(draw.size() - 1), (rs) -> rs.getLong("token"));
			if (token.isEmpty()) {
				throw new IllegalStateException("The sequence returned no token");
			}
			return token.get(0);
		}

		/** Reads what an attempt decides on (state.sql). */
		KeyState state(LockStatement state) throws SQLException {
			List<KeyState> row = query(state,
					(rs) -> new KeyState(rs.getString("holder"), nullableLong(rs, "remaining_ms"),
							nullableLong(rs, "arrival"), rs.getLong("ahead"), rs.getLong("waiting"),
							rs.getLong("writers"), rs.getLong("holders"), rs.getLong("permits"),
							nullableLong(rs, "next_permit_ms")));
			if (row.isEmpty()) {
				throw new IllegalStateException("The state of the key returned no row");
			}
			return row.get(0);
		}

		private PreparedStatement prepare(LockStatement statement) throws SQLException {
			return this.repository.prepare(this.connection, statement, this.values);
		}

		private static @Nullable Long nullableLong(ResultSet resultSet, String column) throws SQLException {
			long value = resultSet.getLong(column);
			return resultSet.wasNull() ? null : value;
		}

	}

	/**
	 * A key as one statement saw it.
	 *
	 * @param holder the owner of the key's row in the lock table while its lease runs (a
	 * plain or fair owner, or a marker), else {@code null}
	 * @param remainingMillis how long the row's lease still runs, or {@code null} if free
	 * @param arrival this owner's arrival number while it is queued, else {@code null}
	 * @param ahead how many live waiters arrived before this owner
	 * @param waiting how many other live waiters there are
	 * @param writers how many other live waiters want the write lock
	 * @param holders how many live readers and writers hold the key
	 * @param permits how many live permit holders hold the key
	 * @param nextPermitMillis how long the soonest lease of the live permit holders still
	 * runs, or {@code null} if none
	 */
	record KeyState(@Nullable String holder, @Nullable Long remainingMillis, @Nullable Long arrival, long ahead,
			long waiting, long writers, long holders, long permits, @Nullable Long nextPermitMillis) {

		/**
		 * How long until a lease ends that may let a claim of {@code kind} in: for
		 * permits the soonest of the holders', as the key's row lasts as long as the
		 * longest; for the other kinds the row's; {@code null} if no lease runs.
		 */
		@Nullable Long untilFreeMillis(LockKind kind) {
			if (kind.type() != LockKind.Type.PERMITS || this.nextPermitMillis == null) {
				return this.remainingMillis;
			}
			return (this.remainingMillis != null) ? Math.min(this.nextPermitMillis, this.remainingMillis)
					: this.nextPermitMillis;
		}

		/** Whether this owner heads the queue, or would head it once queued. */
		boolean first() {
			return (this.arrival != null) ? this.ahead == 0 : this.waiting == 0;
		}

	}

}
