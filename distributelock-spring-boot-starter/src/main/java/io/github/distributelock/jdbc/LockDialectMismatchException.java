package io.github.distributelock.jdbc;

import org.jspecify.annotations.Nullable;

/**
 * Thrown when the JDBC lock dialect was chosen by name and does not serve the database
 * the {@code DataSource} reaches, such as {@code mariadb} on MySQL: its statements would
 * fail there, or run with other meanings.
 *
 * @since 1.0.0
 */
public class LockDialectMismatchException extends IllegalStateException {

	private final String dialect;

	private final String database;

	private final @Nullable String fittingDialect;

	/**
	 * Creates an exception.
	 * @param dialect the dialect that was chosen
	 * @param database the database's product name and version
	 * @param fittingDialect the dialect that serves the database, or {@code null} if none
	 * does
	 */
	public LockDialectMismatchException(String dialect, String database, @Nullable String fittingDialect) {
		super("The JDBC lock dialect '" + dialect + "' does not fit the database, " + database
				+ ((fittingDialect != null) ? ", whose dialect is '" + fittingDialect + "'"
						: ", which no dialect serves"));
		this.dialect = dialect;
		this.database = database;
		this.fittingDialect = fittingDialect;
	}

	/**
	 * The dialect that was chosen.
	 * @return the dialect's name
	 */
	public String getDialect() {
		return this.dialect;
	}

	/**
	 * The database's product name and version, as its JDBC driver reports them.
	 * @return the database
	 */
	public String getDatabase() {
		return this.database;
	}

	/**
	 * The dialect that serves the database.
	 * @return the dialect's name, or {@code null} if no dialect serves the database
	 */
	public @Nullable String getFittingDialect() {
		return this.fittingDialect;
	}

}
