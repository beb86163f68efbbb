package io.github.distributelock.jdbc;

import java.sql.SQLException;
import java.util.function.Supplier;

import org.springframework.dao.InvalidDataAccessResourceUsageException;
import org.springframework.jdbc.BadSqlGrammarException;

/**
 * The tables of the fair, read/write and permit locks beside a lock table, as errors name
 * them when a statement finds them missing or different.
 */
final class JdbcKindTables {

	private final JdbcLockDialect dialect;

	private final String tableName;

	JdbcKindTables(JdbcLockDialect dialect, String tableName) {
		this.dialect = dialect;
		this.tableName = tableName;
	}

	/**
	 * Runs an operation, explaining a statement the database does not understand: the
	 * tables of the lock kinds are missing, or differ from this version's. The engine's
	 * message before it names the key and the operation.
	 */
	<T> T explained(Supplier<T> call) {
		try {
			return call.get();
		}
		catch (BadSqlGrammarException ex) {
			String table = this.tableName;
			String tables = "The tables " + table + "_q, " + table + "_h and " + table
					+ "_p, which fair, read/write and permit locks need beside " + table;
			String script = "io/github/distributelock/jdbc/" + this.dialect + "/schema.sql";
			String cause = " (" + ex.getSQLException().getMessage() + ")";
			if (!missingTable(ex.getSQLException())) {
				throw new InvalidDataAccessResourceUsageException(tables + ", do not match what this version "
						+ "expects: compare them with the script " + script + " and recreate the ones that differ "
						+ "while no fair, read/write or permit lock is held" + cause, ex);
			}
			throw new InvalidDataAccessResourceUsageException(
					tables + ", may be missing: create them with distributelock.jdbc.initialize-schema=always, "
							+ "JdbcLockBackend.createSchema() or the script " + script + cause,
					ex);
		}
	}

	/**
	 * Whether the database says a table does not exist: SQLSTATE {@code 42P01} on
	 * PostgreSQL, {@code 42S02} on MySQL, MariaDB and H2.
	 */
	static boolean missingTable(SQLException ex) {
		return "42P01".equals(ex.getSQLState()) || "42S02".equals(ex.getSQLState());
	}

}
