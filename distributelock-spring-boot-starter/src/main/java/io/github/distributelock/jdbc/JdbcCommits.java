package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * How the JDBC backend commits the statements of one operation on the connection it
 * borrowed for it, whatever commit mode the pool hands connections out in.
 */
final class JdbcCommits {

	private JdbcCommits() {
	}

	/**
	 * Runs {@code work} and commits it: in one transaction when asked for (and restores
	 * auto-commit after it), or as the connection's mode has it.
	 */
	static <T> T committed(Connection connection, boolean oneTransaction, Work<T> work) throws SQLException {
		boolean autoCommit = connection.getAutoCommit();
		boolean begun = autoCommit && oneTransaction;
		if (begun) {
			connection.setAutoCommit(false);
		}
		T result;
		try {
			result = work.run();
			if (!autoCommit || begun) {
				// A pool that hands out connections in manual-commit mode would roll the
				// statements back when the connection returns to it.
				connection.commit();
			}
		}
		catch (SQLException | RuntimeException ex) {
			if (!autoCommit || begun) {
				rollback(connection, ex);
			}
			if (begun) {
				restoreAutoCommit(connection, ex);
			}
			throw ex;
		}
		if (begun) {
			connection.setAutoCommit(true);
		}
		return result;
	}

	private static void rollback(Connection connection, Exception failure) {
		try {
			connection.rollback();
		}
		catch (SQLException ex) {
			failure.addSuppressed(ex);
		}
	}

	private static void restoreAutoCommit(Connection connection, Exception failure) {
		try {
			connection.setAutoCommit(true);
		}
		catch (SQLException ex) {
			failure.addSuppressed(ex);
		}
	}

	@FunctionalInterface
	interface Work<T> {

		T run() throws SQLException;

	}

}
