package io.github.distributelock.benchmarks.store;

import java.util.List;

import io.github.distributelock.jdbc.JdbcLockBackend;

/**
 * The tables the JDBC floor and the JDBC peers need, as their documentation gives them;
 * ours is created by {@link JdbcLockBackend#createSchema()}.
 */
final class Schema {

	static final List<String> POSTGRES = List.of(
			"CREATE TABLE floor_lock (name VARCHAR(255) PRIMARY KEY, owner VARCHAR(64) NOT NULL)",
			"CREATE TABLE INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL, CLIENT_ID CHAR(36), "
					+ "CREATED_DATE TIMESTAMP NOT NULL, EXPIRED_AFTER TIMESTAMP NOT NULL, "
					+ "CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))",
			"CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL, "
					+ "locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");

	/** The tables whose rows count as what a library leaves in the store. */
	static final List<String> LOCK_TABLES = List.of("floor_lock", "INT_LOCK", "shedlock",
			JdbcLockBackend.DEFAULT_TABLE_NAME);

	private Schema() {
	}

}
