package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.BadSqlGrammarException;

/**
 * Deletes the rows of locks free for longer than the retention, from one of the releases
 * of an instance at most once per retention period: the release that finds the period
 * over runs the purge after its own statement, so that it delays the release's answer by
 * one {@code DELETE} per table (on MariaDB and MySQL, by one {@code SELECT} and one
 * {@code DELETE} per {@value #BATCH} rows to delete).
 */
final class ReleasedRowPurge {

	private static final Log logger = LogFactory.getLog(ReleasedRowPurge.class);

	/**
	 * The most rows one {@code DELETE} of MariaDB and MySQL deletes: it keeps them locked
	 * until it ends, and names each by its primary key, up to 3 KB of bind parameters per
	 * row. A release that purged 5,000 rows of the lock table and 5,000 of the holder
	 * table took 2.7 s on MariaDB and 6 s on MySQL with one {@code DELETE} per row, 0.1 s
	 * and 0.4 s in batches of this size.
	 */
	static final int BATCH = 500;

	/** Orders primary keys as InnoDB does: binary columns byte by byte, unsigned. */
	private static final Comparator<Object[]> PRIMARY_KEY_ORDER = (left, right) -> {
		for (int column = 0; column < left.length; column++) {
			int order = compare(left[column], right[column]);
			if (order != 0) {
				return order;
			}
		}
		return 0;
	};

	private final JdbcLockRepository repository;

	private final Duration retention;

	/**
	 * The retention as the statements compute it: at most
	 * {@link JdbcLockBackend#MAX_STORED_LEASE}, which every database subtracts from its
	 * clock correctly (H2 overflows past about 292 years, into a time that may be ahead,
	 * which deleted the rows of held locks).
	 */
	private final long retentionMillis;

	private final long periodNanos;

	private final AtomicLong nextNanos;

	/** The lock table's purge, then the queue, holder and permit tables'. */
	private final List<Table> tables;

	private final @Nullable LockStatement purgeCounter;

	ReleasedRowPurge(JdbcLockRepository repository, Duration retention) {
		this.repository = repository;
		this.retention = retention;
		this.retentionMillis = ((retention.compareTo(JdbcLockBackend.MAX_STORED_LEASE) > 0)
				? JdbcLockBackend.MAX_STORED_LEASE : retention)
			.toMillis();
		this.periodNanos = TimeUnit.MILLISECONDS.toNanos(this.retentionMillis);
		this.nextNanos = new AtomicLong(System.nanoTime() + this.periodNanos);
		JdbcLockDialect dialect = repository.dialect();
		String table = repository.tableName();
		this.tables = new ArrayList<>();
		this.tables.add(new Table(LockStatement.load(dialect, "purge.sql", table),
				LockStatement.exists(dialect, "purge-candidates.sql")
						? LockStatement.load(dialect, "purge-candidates.sql", table) : null));
		List<LockStatement> kinds = LockStatement.loadAll(dialect, "kinds/purge.sql", table);
		List<LockStatement> kindCandidates = LockStatement.exists(dialect, "kinds/purge-candidates.sql")
				? LockStatement.loadAll(dialect, "kinds/purge-candidates.sql", table) : List.of();
		if (!kindCandidates.isEmpty() && kindCandidates.size() != kinds.size()) {
			throw new IllegalStateException(dialect.name() + "/kinds/purge-candidates.sql holds "
					+ kindCandidates.size() + " queries where kinds/purge.sql has " + kinds.size() + " statements");
		}
		for (int i = 0; i < kinds.size(); i++) {
			this.tables.add(new Table(kinds.get(i), kindCandidates.isEmpty() ? null : kindCandidates.get(i)));
		}
		this.purgeCounter = LockStatement.exists(dialect, "purge-counter.sql")
				? LockStatement.load(dialect, "purge-counter.sql", table) : null;
	}

	/** Checks a retention before anything reaches the database. */
	static void requirePositive(Duration retention) {
		if (retention.isNegative() || retention.isZero()) {
			throw new IllegalArgumentException("The released-row retention must be positive, but is " + retention);
		}
	}

	Duration retention() {
		return this.retention;
	}

	/**
	 * Deletes the rows free for longer than the retention now.
	 * @return how many rows were deleted
	 */
	int deleteNow() {
		int deleted = deleteFrom(this.tables.get(0));
		if (this.purgeCounter != null) {
			this.repository.update(this.purgeCounter, Map.of());
		}
		for (Table kind : this.tables.subList(1, this.tables.size())) {
			// Waiters and holders of the other kinds whose lease ran out: inert rows.
			deleted += deleteFromKindTable(kind);
		}
		return deleted;
	}

	/**
	 * Deletes them if this instance's period is over, after the release of {@code key}.
	 */
	void afterRelease(String key) {
		long due = this.nextNanos.get();
		long now = System.nanoTime();
		if (now - due < 0 || !this.nextNanos.compareAndSet(due, now + this.periodNanos)) {
			return;
		}
		try {
			int deleted = deleteNow();
			if (logger.isDebugEnabled()) {
				logger.debug("Deleted " + deleted + " lock rows free for longer than " + this.retentionMillis
						+ " ms from " + this.repository.tableName());
			}
		}
		catch (RuntimeException ex) {
			// The release itself succeeded; the rows are only deleted later.
			logger.warn("Could not delete the free lock rows of " + this.repository.tableName() + " after releasing '"
					+ key + "'; a later release tries again", ex);
		}
	}

	/**
	 * Deletes the inert rows of one table of the other kinds: none when the table is
	 * missing, as in a lock table created for plain locks only, which need none of them.
	 */
	private int deleteFromKindTable(Table table) {
		try {
			return deleteFrom(table);
		}
		catch (BadSqlGrammarException ex) {
			if (!JdbcKindTables.missingTable(ex.getSQLException())) {
				throw ex;
			}
			if (logger.isDebugEnabled()) {
				logger.debug("Nothing to purge beside the lock table " + this.repository.tableName() + ": "
						+ ex.getSQLException().getMessage());
			}
			return 0;
		}
	}

	/**
	 * Deletes the rows of one table free for longer than the retention: with one
	 * statement, or, where the dialect has candidates, in batches of at most
	 * {@value #BATCH} rows, each found by a read that locks nothing and deleted by one
	 * statement that names them by primary key, committed before the next batch is read.
	 */
	private int deleteFrom(Table table) {
		Map<String, Object> retention = Map.of("retention_ms", this.retentionMillis);
		LockStatement candidates = table.candidates();
		if (candidates == null) {
			return this.repository.update(table.delete(), retention);
		}
		Map<String, Object> search = Map.of("retention_ms", this.retentionMillis, "batch", BATCH);
		int deleted = 0;
		while (true) {
			Batch batch = this.repository.onConnection(table.delete().name(), false,
					(connection) -> deleteBatch(connection, candidates, table.delete(), search));
			deleted += batch.deleted();
			// A row found and not deleted was taken since: the next read does not find
			// it again.
			if (batch.found() < BATCH || batch.deleted() == 0) {
				return deleted;
			}
		}
	}

	private Batch deleteBatch(Connection connection, LockStatement candidates, LockStatement delete,
			Map<String, Object> search) throws SQLException {
		List<Object[]> keys = primaryKeys(connection, candidates, search);
		if (keys.isEmpty()) {
			return new Batch(0, 0);
		}
		// In the order of the primary key, the order in which the other statements lock
		// several rows of one table (a key's holders or permit slots, scanned through
		// the primary key). A batch locks rows of this one table only, so it closes no
		// cycle of lock waits with an attempt, which locks one key's rows across tables.
		keys.sort(PRIMARY_KEY_ORDER);
		List<?> values = (keys.get(0).length == 1) ? keys.stream().map((key) -> key[0]).toList() : keys;
		try (PreparedStatement ps = this.repository.prepare(connection, delete,
				Map.of("keys", values, "retention_ms", this.retentionMillis))) {
			return new Batch(keys.size(), this.repository.timed(connection, ps, PreparedStatement::executeUpdate));
		}
	}

	/** The primary key of each row {@code candidates} returns, its columns in order. */
	private List<Object[]> primaryKeys(Connection connection, LockStatement candidates, Map<String, Object> values)
			throws SQLException {
		try (PreparedStatement ps = this.repository.prepare(connection, candidates, values);
				ResultSet rs = this.repository.timed(connection, ps, PreparedStatement::executeQuery)) {
			int columns = rs.getMetaData().getColumnCount();
			List<Object[]> keys = new ArrayList<>();
			while (rs.next()) {
				Object[] key = new Object[columns];
				for (int column = 0; column < columns; column++) {
					key[column] = rs.getObject(column + 1);
				}
				keys.add(key);
			}
			return keys;
		}
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static int compare(Object left, Object right) {
		if (left instanceof byte[] leftBytes && right instanceof byte[] rightBytes) {
			return Arrays.compareUnsigned(leftBytes, rightBytes);
		}
		return ((Comparable) left).compareTo(right);
	}

	/**
	 * One table's purge: a {@code DELETE} by lease, or, with {@code candidates}, by the
	 * primary keys they return.
	 */
	private record Table(LockStatement delete, @Nullable LockStatement candidates) {
	}

	private record Batch(int found, int deleted) {
	}

}
