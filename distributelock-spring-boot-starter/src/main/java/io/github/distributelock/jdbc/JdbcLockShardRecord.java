package io.github.distributelock.jdbc;

import java.sql.DatabaseMetaData;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.BadSqlGrammarException;

/**
 * What one database of a sharded lock table records about the shard list, in the table
 * {@code
 *
<table>
 * _shards} beside the lock table, and what the check of that list needs to know of the
 * database: its live locks and how far its fencing tokens have come.
 */
final class JdbcLockShardRecord {

	private final JdbcLockRepository repository;

	private final LockStatement read;

	private final LockStatement insert;

	private final LockStatement update;

	private final LockStatement liveLocks;

	private final List<LockStatement> nextToken;

	private final LockStatement raiseTokens;

	JdbcLockShardRecord(JdbcLockRepository repository) {
		this.repository = repository;
		String table = repository.tableName();
		JdbcLockDialect dialect = repository.dialect();
		this.read = LockStatement.loadShared("read.sql", table);
		this.insert = LockStatement.loadShared("insert.sql", table);
		this.update = LockStatement.loadShared("update.sql", table);
		this.liveLocks = LockStatement.load(dialect, "live-locks.sql", table);
		this.nextToken = LockStatement.loadAll(dialect, "next-token.sql", table);
		this.raiseTokens = LockStatement.load(dialect, "raise-tokens.sql", table);
	}

	/** The table of the record. */
	String tableName() {
		return LockStatement.shardsTableName(this.repository.tableName());
	}

	/** The lock table beside which the record is kept. */
	String lockTableName() {
		return this.repository.tableName();
	}

	/**
	 * Which database this is, as far as the driver tells: its JDBC URL and user, or
	 * {@code null} if it cannot be reached. Two shards with the same are one database.
	 */
	@Nullable String database() {
		try {
			return this.repository.onConnection("read the database's URL", false, (connection) -> {
				DatabaseMetaData metaData = connection.getMetaData();
				return metaData.getURL() + " as " + metaData.getUserName();
			});
		}
		catch (DataAccessException ex) {
			return null;
		}
	}

	/** Creates the table of the record unless it exists. */
	void createTable() {
		this.repository.runScript(LockStatement.sharedText("schema.sql", this.repository.tableName()),
				"create the table " + tableName());
	}

	/** The list this database recorded, or {@code null} if it recorded none. */
	@Nullable Recorded read() {
		return this.repository.query(this.read, Map.of(),
				(rs) -> new Recorded(rs.getInt("shard_index"), rs.getInt("shard_count"), rs.getString("shard_names")));
	}

	/**
	 * The list this database recorded, or {@code null} if it recorded none or has no
	 * table for it (never used with shards).
	 */
	@Nullable Recorded readIfPresent() {
		try {
			return read();
		}
		catch (BadSqlGrammarException ex) {
			return null;
		}
	}

	/**
	 * Records the list, as a first record or in place of the one there.
	 * @throws org.springframework.dao.DuplicateKeyException if it is a first record and
	 * another instance recorded one meanwhile
	 */
	void write(Recorded record, boolean first) {
		Map<String, Object> values = Map.of("index", record.index(), "count", record.count(), "names", record.names());
		if (first) {
			this.repository.update(this.insert, values);
		}
		else if (this.repository.update(this.update, values) == 0) {
			this.repository.update(this.insert, values);
		}
	}

	/** How many locks are held in this database now. */
	long liveLocks() {
		Long live = this.repository.query(this.liveLocks, Map.of(), (rs) -> rs.getLong("live"));
		return (live != null) ? live : 0;
	}

	/** Draws a fencing token: how far this database's tokens have come. */
	long nextToken() {
		Long token = this.repository.queryAfter(this.nextToken, Map.of(), (rs) -> rs.getLong("token"));
		if (token == null) {
			throw new IllegalStateException("The database drew no fencing token");
		}
		return token;
	}

	/** Makes every later fencing token of this database larger than {@code floor}. */
	void raiseTokensAbove(long floor) {
		this.repository.run(this.raiseTokens, Map.of("floor", floor));
	}

	/**
	 * A shard list as one database records it: which shard it is, of how many, and the
	 * names of all in order.
	 */
	record Recorded(int index, int count, String names) {

		/** Whether a key lands in this database under both lists alike. */
		boolean sameShardAs(Recorded other) {
			return this.index == other.index && this.count == other.count;
		}

	}

}
