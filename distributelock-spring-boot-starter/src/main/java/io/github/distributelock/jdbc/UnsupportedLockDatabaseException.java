package io.github.distributelock.jdbc;

/**
 * Thrown when the JDBC lock backend is given a database it has no SQL dialect for.
 *
 * @since 1.0.0
 */
public class UnsupportedLockDatabaseException extends IllegalStateException {

	private final String database;

	private final String reason;

	/**
	 * Creates an exception.
	 * @param database the database's product name and version
	 * @param reason why it cannot hold locks
	 */
	public UnsupportedLockDatabaseException(String database, String reason) {
		super("The JDBC lock backend does not support " + database + ": " + reason + ". It supports "
				+ JdbcLockDialect.supportedDatabases() + ".");
		this.database = database;
		this.reason = reason;
	}

	/**
	 * The database's product name and version, as its JDBC driver reports them.
	 * @return the database
	 */
	public String getDatabase() {
		return this.database;
	}

	/**
	 * Why the database cannot hold locks.
	 * @return the reason
	 */
	public String getReason() {
		return this.reason;
	}

}
