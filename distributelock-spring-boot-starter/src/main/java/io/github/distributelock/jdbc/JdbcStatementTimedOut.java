package io.github.distributelock.jdbc;

import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.time.Duration;

/**
 * A lock statement that failed because it ran past the statement timeout
 * ({@link JdbcStatementTimeouts}): cancelled, ended by the driver, or ended as its
 * connection was aborted; or another round trip of a lock operation (a commit, a change
 * of the commit mode) that failed as its connection was aborted.
 */
final class JdbcStatementTimedOut extends SQLTimeoutException {

	private final Duration timeout;

	private final boolean aborted;

	JdbcStatementTimedOut(Duration timeout, boolean aborted, SQLException failure) {
		super(failure.getMessage(), failure.getSQLState(), failure.getErrorCode(), failure);
		this.timeout = timeout;
		this.aborted = aborted;
	}

	Duration timeout() {
		return this.timeout;
	}

	/** Whether the round trip ended as its connection was aborted. */
	boolean aborted() {
		return this.aborted;
	}

}
