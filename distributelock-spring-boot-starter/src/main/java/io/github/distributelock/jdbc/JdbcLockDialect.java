package io.github.distributelock.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

import javax.sql.DataSource;

import io.github.distributelock.jdbc.JdbcRowLockWaits.Bounded;
import io.github.distributelock.jdbc.JdbcRowLockWaits.RowWait;
import io.github.distributelock.jdbc.JdbcRowLockWaits.SqlWork;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * One database the JDBC backend supports. Its statements live in the resources folder
 * named after it ({@code io/github/distributelock/jdbc/<name>/*.sql}); the class only
 * tells which databases it serves.
 */
abstract class JdbcLockDialect {

	private static final Log logger = LogFactory.getLog(JdbcLockDialect.class);

	private static final List<JdbcLockDialect> DIALECTS = List.of(new PostgresLockDialect(), new H2LockDialect(),
			new MariaDbLockDialect(), new MySqlLockDialect());

	/**
	 * The name of the dialect and of its resources folder, as in
	 * {@code distributelock.jdbc.dialect}.
	 */
	abstract String name();

	/**
	 * The databases it serves, such as "MariaDB 10.5 or later".
	 */
	abstract String database();

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

	/**
	 * Whether the database's driver ends a statement's wait for a row lock when the
	 * calling thread is interrupted, failing the statement as if the lock had timed out
	 * and clearing the interrupt: a statement must then run on a thread nobody
	 * interrupts, or a release fails and the caller never hears of its interrupt.
	 */
	boolean endsLockWaitsOnInterrupt() {
		return false;
	}

	/**
	 * How the statement timeout bounds a lock statement on this database: by default with
	 * the driver's {@link java.sql.Statement#setQueryTimeout}.
	 */
	StatementBound statementBound() {
		return StatementBound.QUERY_TIMEOUT;
	}

	/**
	 * The longest wait for a row lock, in whole seconds, that this database's statements
	 * can bound by a caller's deadline ({@link JdbcRowLockWaits}); a caller with more
	 * time left runs the plain statement, bounded by the statement timeout alone. By
	 * default any wait.
	 */
	long longestRowWaitSeconds() {
		return Long.MAX_VALUE;
	}

	/**
	 * {@code plain}, the statement of {@code file}, with the variants that bound its wait
	 * for a row lock: by default none.
	 */
	Bounded rowWaitBounded(String file, LockStatement plain, String tableName) {
		return Bounded.plain(plain);
	}

	/**
	 * Runs {@code work}, whose waits for a row lock are to end after {@code wait}, on
	 * {@code connection}: by default as it is, the statements bounding themselves.
	 * @param key the lock's key, for the log
	 */
	<T> T aroundRowWait(Connection connection, RowWait wait, String key, SqlWork<T> work) throws SQLException {
		return work.run();
	}

	static String supportedNames() {
		return DIALECTS.stream().map(JdbcLockDialect::name).collect(Collectors.joining(", "));
	}

	/** Each dialect's name and the databases it serves. */
	static Map<String, String> supported() {
		Map<String, String> supported = new LinkedHashMap<>();
		DIALECTS.forEach((dialect) -> supported.put(dialect.name(), dialect.database()));
		return Collections.unmodifiableMap(supported);
	}

	/** Such as "PostgreSQL (postgresql), H2 2.x (h2), ...". */
	static String supportedDatabases() {
		return DIALECTS.stream()
			.map((dialect) -> dialect.database() + " (" + dialect.name() + ")")
			.collect(Collectors.joining(", "));
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
		Product product;
		try {
			product = product(dataSource);
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException(
					"Could not read the database's metadata to choose the JDBC lock dialect: " + ex.getMessage(), ex);
		}
		JdbcLockDialect dialect = serving(product);
		if (dialect == null) {
			throw new UnsupportedLockDatabaseException(product.toString(), "there is no SQL dialect for it");
		}
		dialect.requireSupportedVersion(product);
		return dialect;
	}

	/**
	 * Checks that this dialect, chosen by name, serves the database behind
	 * {@code dataSource}: another dialect's statements would fail there, or worse, run
	 * with other meanings.
	 * @return whether the database could be asked; if not, it is checked by nothing, and
	 * lock calls fail until it can be reached
	 * @throws LockDialectMismatchException if it does not serve the database
	 * @throws UnsupportedLockDatabaseException if it serves the database but not its
	 * version
	 */
	boolean checkFits(DataSource dataSource) {
		Product product;
		try {
			product = product(dataSource);
		}
		catch (MetaDataAccessException ex) {
			logger.warn("Could not read the database's metadata to check that the JDBC lock dialect '" + name()
					+ "' fits it; lock calls fail until the database can be reached: " + ex.getMessage());
			return false;
		}
		if (!matches(product.name(), product.version())) {
			JdbcLockDialect fitting = serving(product);
			throw new LockDialectMismatchException(name(), product.toString(),
					(fitting != null) ? fitting.name() : null);
		}
		requireSupportedVersion(product);
		return true;
	}

	private void requireSupportedVersion(Product product) {
		String problem = unsupportedVersion(product.version());
		if (problem != null) {
			throw new UnsupportedLockDatabaseException(product.toString(), problem);
		}
	}

	private static @Nullable JdbcLockDialect serving(Product product) {
		for (JdbcLockDialect dialect : DIALECTS) {
			if (dialect.matches(product.name(), product.version())) {
				return dialect;
			}
		}
		return null;
	}

	private static Product product(DataSource dataSource) throws MetaDataAccessException {
		return JdbcUtils.extractDatabaseMetaData(dataSource,
				(DatabaseMetaData metaData) -> new Product(
						Objects.requireNonNullElse(metaData.getDatabaseProductName(), "unknown"),
						Objects.requireNonNullElse(metaData.getDatabaseProductVersion(), "")));
	}

	@Override
	public String toString() {
		return name();
	}

	/** A database as its JDBC driver names it. */
	private record Product(String name, String version) {

		@Override
		public String toString() {
			return (this.name + " " + this.version).strip();
		}

	}

	/** How the statement timeout bounds a lock statement. */
	enum StatementBound {

		/**
		 * Cancelled ({@link java.sql.Statement#cancel()}) from one timer for the earliest
		 * deadline: for a driver that cancels only a statement in progress, and makes the
		 * statement's thread wait for a cancel in flight, so that no cancel reaches the
		 * connection's next statement.
		 */
		CANCEL,

		/**
		 * The driver's {@link java.sql.Statement#setQueryTimeout}: where a cancel from
		 * outside is a {@code KILL QUERY} on another connection, which could reach the
		 * connection's next statement if the lock statement ended meanwhile.
		 */
		QUERY_TIMEOUT,

		/** Not bounded by the statement timeout: the database's own lock timeout is. */
		NONE

	}

}
