package io.github.distributelock.jdbc;

import java.sql.DatabaseMetaData;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * One database the JDBC backend supports. Its statements live in the resources folder
 * named after it ({@code io/github/distributelock/jdbc/<name>/*.sql}); the class only
 * tells which databases it serves.
 */
abstract class JdbcLockDialect {

	private static final List<JdbcLockDialect> DIALECTS = List.of(new PostgresLockDialect(), new H2LockDialect(),
			new MariaDbLockDialect());

	/**
	 * The name of the dialect and of its resources folder, as in
	 * {@code distributelock.jdbc.dialect}.
	 */
	abstract String name();

	/**
	 * The database's name in Spring's {@code sql-error-codes.xml}, which translates its
	 * error codes.
	 */
	abstract String productName();

	/**
	 * Whether this dialect serves a database that reports this product name and version.
	 */
	abstract boolean matches(String productName, String productVersion);

	/**
	 * Why this version of the database cannot be used, or {@code null} if it can.
	 */
	@Nullable String unsupportedVersion(String productVersion) {
		return null;
	}

	/**
	 * Why the database cannot store {@code text} in the lock table's character columns,
	 * or {@code null} if it can.
	 */
	@Nullable String unstorable(String text) {
		return null;
	}

	static String supportedNames() {
		return DIALECTS.stream().map(JdbcLockDialect::name).collect(Collectors.joining(", "));
	}

	static JdbcLockDialect named(String name) {
		for (JdbcLockDialect dialect : DIALECTS) {
			if (dialect.name().equals(name.trim().toLowerCase(Locale.ROOT))) {
				return dialect;
			}
		}
		throw new IllegalArgumentException(
				"Unknown JDBC lock dialect '" + name + "'; the supported dialects are: " + supportedNames());
	}

	/**
	 * The dialect of the database behind {@code dataSource}, from its connection's
	 * metadata.
	 * @throws UnsupportedLockDatabaseException if no dialect serves it
	 */
	static JdbcLockDialect detect(DataSource dataSource) {
		String[] product;
		try {
			product = JdbcUtils.extractDatabaseMetaData(dataSource, (DatabaseMetaData metaData) -> new String[] {
					metaData.getDatabaseProductName(), metaData.getDatabaseProductVersion() });
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException(
					"Could not read the database's metadata to choose the JDBC lock dialect: " + ex.getMessage(), ex);
		}
		String name = (product[0] != null) ? product[0] : "unknown";
		String version = (product[1] != null) ? product[1] : "";
		for (JdbcLockDialect dialect : DIALECTS) {
			if (dialect.matches(name, version)) {
				String problem = dialect.unsupportedVersion(version);
				if (problem != null) {
					throw new UnsupportedLockDatabaseException(name + " " + version, problem);
				}
				return dialect;
			}
		}
		String problem = name.toLowerCase(Locale.ROOT).contains("mysql")
				? "MySQL has no sequences to issue fencing tokens from and no RETURNING clause; MariaDB 10.5 or "
						+ "later has both"
				: "there is no SQL dialect for it";
		throw new UnsupportedLockDatabaseException(name + " " + version, problem);
	}

	@Override
	public String toString() {
		return name();
	}

}
