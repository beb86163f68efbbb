package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import io.github.distributelock.jdbc.JdbcRowLockWaits.RowWait;
import io.github.distributelock.jdbc.JdbcRowLockWaits.SqlWork;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * H2 2.x: a conditional {@code MERGE INTO ... USING} read through {@code FINAL TABLE}, as
 * H2 has no {@code ON CONFLICT ... DO UPDATE}.
 */
final class H2LockDialect extends JdbcLockDialect {

	private static final Log logger = LogFactory.getLog(H2LockDialect.class);

	@Override
	String name() {
		return "h2";
	}

	@Override
	String database() {
		return "H2 2.x";
	}

	@Override
	String productName() {
		return "H2";
	}

	/**
	 * H2 runs in the calling thread, and its wait for a row lock returns on an interrupt
	 * as on a lock timeout, clearing the interrupt.
	 */
	@Override
	boolean endsLockWaitsOnInterrupt() {
		return true;
	}

	/**
	 * H2 ends a wait for a row lock at its {@code LOCK_TIMEOUT} (2 s by default), and
	 * answers it as a lock held by another; a cancel does not end that wait, and its
	 * statement timeout is a setting of the session, which would stay on the
	 * application's pooled connection.
	 */
	@Override
	StatementBound statementBound() {
		return StatementBound.NONE;
	}

	@Override
	boolean matches(String productName, String productVersion) {
		return "H2".equalsIgnoreCase(productName);
	}

	/**
	 * H2 runs in the process: the session's {@code LOCK_TIMEOUT} is set to {@code wait}
	 * when that is shorter, and restored after the operation.
	 */
	@Override
	<T> T aroundRowWait(Connection connection, RowWait wait, String key, SqlWork<T> work) throws SQLException {
		int previous;
		try (PreparedStatement read = connection.prepareStatement("SELECT LOCK_TIMEOUT()");
				ResultSet rs = read.executeQuery()) {
			previous = rs.next() ? rs.getInt(1) : 0;
		}
		if (previous > 0 && previous <= wait.millis()) {
			return work.run();
		}
		setLockTimeout(connection, (int) Math.min(wait.millis(), Integer.MAX_VALUE));
		try {
			return work.run();
		}
		finally {
			try {
				setLockTimeout(connection, previous);
			}
			catch (SQLException ex) {
				// The connection goes back to the pool with the short timeout: closed
				// instead, so that no other statement of the application gets it.
				logger.warn("Could not restore H2's LOCK_TIMEOUT after an operation on lock '" + key
						+ "'; closing its connection", ex);
				abort(connection, key);
			}
		}
	}

	private static void abort(Connection connection, String key) {
		try {
			connection.abort(Runnable::run);
		}
		catch (SQLException ex) {
			logger.warn("Could not close the connection of an operation on lock '" + key + "'", ex);
		}
	}

	private static void setLockTimeout(Connection connection, int millis) throws SQLException {
		try (PreparedStatement set = connection.prepareStatement("SET LOCK_TIMEOUT ?")) {
			set.setInt(1, millis);
			set.execute();
		}
	}

}
