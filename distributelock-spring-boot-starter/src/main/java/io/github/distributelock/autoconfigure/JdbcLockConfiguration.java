package io.github.distributelock.autoconfigure;

import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

import javax.sql.DataSource;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.LockDialectMismatchException;
import io.github.distributelock.jdbc.LockShardsChangedException;
import io.github.distributelock.jdbc.UnsupportedLockDatabaseException;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.dao.DataAccessException;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.util.ClassUtils;

/**
 * The JDBC backend, on a lock table in the application's {@link DataSource}.
 *
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(JdbcTemplate.class)
@ConditionalOnProperty(name = "distributelock.type", havingValue = "jdbc")
@Import(ShardedJdbcLockConfiguration.class)
class JdbcLockConfiguration {

	private static final Duration SHORTEST_RELEASED_ROW_RETENTION = Duration.ofMillis(1);

	private static final String EMBEDDED_DATABASE_CONNECTION = "org.springframework.boot.jdbc.EmbeddedDatabaseConnection";

	@Bean
	@ConditionalOnMissingBean(LockBackend.class)
	JdbcLockBackend jdbcLockBackend(ObjectProvider<DataSource> dataSource, DistributeLockProperties properties,
			ObjectProvider<JdbcLockBackendCustomizer> customizers) {
		DataSource database = dataSource.getIfUnique();
		if (database == null) {
			throw new DistributeLockConfigurationException(
					"distributelock.type=jdbc needs a DataSource bean, and the application has none (or several, "
							+ "none of them primary).",
					"Add org.springframework.boot:spring-boot-starter-jdbc and set spring.datasource.url, or define "
							+ "a DataSource bean (marked @Primary if there are several).");
		}
		JdbcLockBackendSettings settings = new JdbcLockBackendSettings(properties.getJdbc());
		customizers.orderedStream().forEach((customizer) -> customizer.customize(settings));
		JdbcLockBackend backend = createBackend(database, settings);
		try {
			if (shouldCreateSchema(properties.getJdbc().getInitializeSchema(), database)) {
				createSchema(backend);
			}
			checkNoShardList(backend);
		}
		catch (RuntimeException ex) {
			backend.close();
			throw ex;
		}
		return backend;
	}

	/**
	 * Refuses to lock, on one database, keys that instances with shards keep in other
	 * databases, where these locks would not exclude their holders.
	 */
	private static void checkNoShardList(JdbcLockBackend backend) {
		try {
			backend.checkNoShardList();
		}
		catch (LockShardsChangedException ex) {
			throw new DistributeLockConfigurationException(ex.getMessage() + ".",
					"Set distributelock.jdbc.shards to the DataSource beans of the shards " + ex.getRecorded()
							+ ", in that order, as the instances that recorded the list; or, to use this database "
							+ "alone, stop every instance that uses these databases, let their locks be released (or "
							+ "their leases run out), start once with distributelock.jdbc.shards set to this "
							+ "database's DataSource bean alone and distributelock.jdbc.shards-changed-drained=true, "
							+ "which records a list of one, then remove both properties.");
		}
	}

	static JdbcLockBackend createBackend(DataSource dataSource, JdbcLockBackendSettings settings) {
		return CustomizedSettings.explainingChanges(JdbcLockBackendCustomizer.class.getSimpleName(),
				settings.changedByCustomizers(), () -> checkedBackend(dataSource, settings));
	}

	private static JdbcLockBackend checkedBackend(DataSource dataSource, JdbcLockBackendSettings settings) {
		Duration retention = settings.getReleasedRowRetention();
		if (retention == null || retention.isNegative() || retention.isZero()) {
			throw new DistributeLockConfigurationException(
					"distributelock.jdbc.released-row-retention must be positive, but is " + retention + ".",
					"Set distributelock.jdbc.released-row-retention to how long the rows of released locks are "
							+ "kept, longer than any lock statement can stall in the database, such as 1m.");
		}
		if (retention.compareTo(SHORTEST_RELEASED_ROW_RETENTION) < 0) {
			// Positive, yet 0 ms in the statements: each release would also purge the
			// rows just freed, and with them the order of fencing tokens they keep.
			throw new DistributeLockConfigurationException(
					"distributelock.jdbc.released-row-retention is " + retention
							+ ", shorter than 1 ms: the lock statements count it in whole milliseconds, so the rows of "
							+ "released locks would be deleted at once, and fencing tokens could leave the order of "
							+ "acquisition.",
					"Set distributelock.jdbc.released-row-retention to 1ms or more, longer than any lock statement can "
							+ "stall in the database, such as 1m (the default), or remove it.");
		}
		Duration statementTimeout = settings.getStatementTimeout();
		if (statementTimeout == null || statementTimeout.isNegative()) {
			throw new DistributeLockConfigurationException(
					"distributelock.jdbc.statement-timeout must be zero or positive, but is " + statementTimeout + ".",
					"Set distributelock.jdbc.statement-timeout to the longest one lock statement may run, such as "
							+ "10s, or to 0 for no bound.");
		}
		String dialect = settings.getDialect();
		if (dialect != null && !dialect.isBlank()
				&& !JdbcLockBackend.supportedDialects().containsKey(dialect.trim().toLowerCase(Locale.ROOT))) {
			throw new DistributeLockConfigurationException(
					"distributelock.jdbc.dialect is '" + dialect + "', which is not a JDBC lock dialect.",
					"Set distributelock.jdbc.dialect to " + orList(JdbcLockBackend.supportedDialects()
						.entrySet()
						.stream()
						.map((named) -> named.getKey() + " (" + named.getValue() + ")")
						.toList()) + ", or remove it so that the dialect is " + "detected from the database.");
		}
		try {
			JdbcLockBackend backend = new JdbcLockBackend(dataSource, settings.getTableName(), dialect,
					Clock.systemUTC(), retention, settings.isReleaseNotifications());
			backend.setStatementTimeout(statementTimeout);
			return backend;
		}
		catch (LockDialectMismatchException ex) {
			throw new DistributeLockConfigurationException(ex.getMessage() + ".",
					(ex.getFittingDialect() != null)
							? "Set distributelock.jdbc.dialect to " + ex.getFittingDialect()
									+ ", or remove it so that the dialect is detected from the database."
							: keepTheLocksElsewhere());
		}
		catch (UnsupportedLockDatabaseException ex) {
			throw new DistributeLockConfigurationException(ex.getMessage(), keepTheLocksElsewhere());
		}
		catch (IllegalStateException ex) {
			throw new DistributeLockConfigurationException(ex.getMessage() + ".",
					"Make sure the database at spring.datasource.url is reachable when the application starts, or "
							+ "set distributelock.jdbc.dialect ("
							+ String.join(", ", JdbcLockBackend.supportedDialects().keySet())
							+ ") so that the lock backend starts without it; lock calls then fail with a "
							+ "DistributeLockException until the database is up.");
		}
		catch (IllegalArgumentException ex) {
			throw new DistributeLockConfigurationException(ex.getMessage() + ".",
					"Set distributelock.jdbc.table-name to a plain identifier, optionally schema-qualified.");
		}
	}

	private static String keepTheLocksElsewhere() {
		return "Keep the locks in " + orList(List.copyOf(JdbcLockBackend.supportedDialects().values()))
				+ ", or set distributelock.type to redis or zookeeper.";
	}

	/** Such as "a, b or c". */
	private static String orList(List<String> items) {
		return String.join(", ", items.subList(0, items.size() - 1)) + " or " + items.get(items.size() - 1);
	}

	private static void createSchema(JdbcLockBackend backend) {
		try {
			backend.createSchema();
		}
		catch (DataAccessException ex) {
			String createItYourself = "create the table yourself (docs/backends/jdbc.md has the DDL) and set "
					+ "distributelock.jdbc.initialize-schema=never.";
			throw new DistributeLockConfigurationException(
					"Could not create the lock table " + backend.tableName() + ": " + ex.getMostSpecificCause(),
					refusedStatement(ex.getMostSpecificCause())
							? "The database refused the statement that creates it: set distributelock.jdbc.table-name "
									+ "to a name it accepts (not a reserved word such as select or order, in a "
									+ "schema that exists), or " + createItYourself
							: "Make sure the database is reachable when the application starts, or "
									+ createItYourself);
		}
	}

	/**
	 * Whether the database refused the statement itself (SQLSTATE class 42: a syntax
	 * error, such as a reserved word for a table name, or an access rule), rather than
	 * failing to run it.
	 */
	private static boolean refusedStatement(Throwable cause) {
		return cause instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("42");
	}

	static boolean shouldCreateSchema(DistributeLockProperties.SchemaInitializationMode mode, DataSource dataSource) {
		return switch (mode) {
			case ALWAYS -> true;
			case NEVER -> false;
			case EMBEDDED ->
				ClassUtils.isPresent(EMBEDDED_DATABASE_CONNECTION, JdbcLockConfiguration.class.getClassLoader())
						&& EmbeddedDatabase.isEmbedded(dataSource);
		};
	}

	/**
	 * Spring Boot's own test for an embedded database, isolated so that it is loaded only
	 * when spring-boot-jdbc is present.
	 */
	private static final class EmbeddedDatabase {

		static boolean isEmbedded(DataSource dataSource) {
			return EmbeddedDatabaseConnection.isEmbedded(dataSource);
		}

	}

}
