package io.github.distributelock.autoconfigure;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Duration;

import javax.sql.DataSource;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.JdbcTestDatabase;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * Tests for the JDBC backend of {@link DistributeLockAutoConfiguration}.
 */
class JdbcLockAutoConfigurationTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataSourceAutoConfiguration.class, DistributeLockAutoConfiguration.class))
		.withPropertyValues("distributelock.type=jdbc");

	@Test
	void backendOnAnEmbeddedH2CreatesTheLockTable() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(JdbcLockBackend.class);
			assertThat(context.getBean(JdbcLockBackend.class).dialect()).isEqualTo("h2");
			assertThat(tableCount(context, "DISTRIBUTELOCK")).isOne();
			DistributeLock lock = context.getBean(DistributeLock.class);
			try (LockHandle handle = lock.tryAcquire("order.42", Duration.ZERO, null).orElseThrow()) {
				assertThat(handle.isHeld()).isTrue();
			}
		});
	}

	@Test
	void tableNameIsConfigurable() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.table-name=app_locks").run((context) -> {
			assertThat(context.getBean(JdbcLockBackend.class).tableName()).isEqualTo("app_locks");
			assertThat(tableCount(context, "APP_LOCKS")).isOne();
			assertThat(tableCount(context, "DISTRIBUTELOCK")).isZero();
		});
	}

	@Test
	void backendCustomizersAreAppliedAfterTheProperties() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.table-name=app_locks")
			.withBean("tenantTable", JdbcLockBackendCustomizer.class,
					() -> (settings) -> settings.setTableName(settings.getTableName() + "_tenant_a"))
			.withBean("shorterRetention", JdbcLockBackendCustomizer.class,
					() -> (settings) -> settings.setReleasedRowRetention(Duration.ofMinutes(3)))
			.run((context) -> {
				JdbcLockBackend backend = context.getBean(JdbcLockBackend.class);
				assertThat(backend.tableName()).isEqualTo("app_locks_tenant_a");
				assertThat(backend.releasedRowRetention()).isEqualTo(Duration.ofMinutes(3));
				assertThat(tableCount(context, "APP_LOCKS_TENANT_A")).isOne();
				assertThat(tableCount(context, "APP_LOCKS")).isZero();
			});
	}

	@Test
	void badValueSetByACustomizerFailsAtStartupNamingTheCustomizer() {
		this.contextRunner
			.withBean(JdbcLockBackendCustomizer.class,
					() -> (settings) -> settings.setReleasedRowRetention(Duration.ZERO))
			.run((context) -> {
				assertThat(context).hasFailed();
				DistributeLockConfigurationException failure = (DistributeLockConfigurationException) NestedExceptionUtils
					.getMostSpecificCause(context.getStartupFailure());
				assertThat(failure.getDescription()).isEqualTo("distributelock.jdbc.released-row-retention must be "
						+ "positive, but is PT0S. A JdbcLockBackendCustomizer bean set releasedRowRetention to PT0S "
						+ "after the properties were read.");
				assertThat(failure.getAction())
					.startsWith("Correct the JdbcLockBackendCustomizer bean, or: Set distributelock.jdbc.released-row");
			});
	}

	@Test
	void nullRetentionSetByACustomizerFailsAtStartupNamingThePropertyAndTheCustomizer() {
		// A NullPointerException failed the start, naming neither.
		this.contextRunner
			.withBean(JdbcLockBackendCustomizer.class, () -> (settings) -> settings.setReleasedRowRetention(null))
			.run((context) -> assertFailure(context,
					"distributelock.jdbc.released-row-retention must be positive, but is null. A "
							+ "JdbcLockBackendCustomizer bean set releasedRowRetention to null",
					"Correct the JdbcLockBackendCustomizer bean"));
	}

	@Test
	void nullStatementTimeoutSetByACustomizerFailsAtStartupNamingThePropertyAndTheCustomizer() {
		// A NullPointerException failed the start, naming neither.
		this.contextRunner
			.withBean(JdbcLockBackendCustomizer.class, () -> (settings) -> settings.setStatementTimeout(null))
			.run((context) -> assertFailure(context,
					"distributelock.jdbc.statement-timeout must be zero or positive, but is null. A "
							+ "JdbcLockBackendCustomizer bean set statementTimeout to null",
					"Correct the JdbcLockBackendCustomizer bean"));
	}

	@Test
	void initializeSchemaNeverLeavesTheTableUncreated() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.initialize-schema=never").run((context) -> {
			assertThat(context).hasSingleBean(JdbcLockBackend.class);
			assertThat(tableCount(context, "DISTRIBUTELOCK")).isZero();
		});
	}

	@Test
	void initializeSchemaEmbeddedLeavesADatabaseOnDiskAlone(@TempDir Path directory) {
		this.contextRunner.withPropertyValues("spring.datasource.url=jdbc:h2:file:" + directory.resolve("db"))
			.run((context) -> assertThat(tableCount(context, "DISTRIBUTELOCK")).isZero());
	}

	@Test
	void initializeSchemaAlwaysCreatesTheTableInADatabaseOnDisk(@TempDir Path directory) {
		this.contextRunner
			.withPropertyValues("spring.datasource.url=jdbc:h2:file:" + directory.resolve("db"),
					"distributelock.jdbc.initialize-schema=always")
			.run((context) -> assertThat(tableCount(context, "DISTRIBUTELOCK")).isOne());
	}

	@Test
	void tableNameThatIsNotAPlainIdentifierFailsAtStartup() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.table-name=locks; DROP TABLE users")
			.run((context) -> assertFailure(context, "is not a plain SQL identifier",
					"distributelock.jdbc.table-name"));
	}

	@Test
	void tableNameTheDatabaseRefusesFailsAtStartupSayingToChooseAnother() {
		// The action said to make the database reachable, which it was.
		this.contextRunner.withPropertyValues("distributelock.jdbc.table-name=select")
			.run((context) -> assertFailure(context, "Could not create the lock table select: ",
					"The database refused the statement that creates it: set distributelock.jdbc.table-name to a "
							+ "name it accepts (not a reserved word such as select or order, in a schema that "
							+ "exists), or create the table yourself"));
	}

	@Test
	void releasedRowRetentionIsConfigurable() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.released-row-retention=5m")
			.run((context) -> assertThat(context.getBean(JdbcLockBackend.class).releasedRowRetention())
				.isEqualTo(Duration.ofMinutes(5)));
	}

	@Test
	void releasedRowRetentionOfZeroFailsAtStartup() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.released-row-retention=0s")
			.run((context) -> assertFailure(context, "distributelock.jdbc.released-row-retention must be positive",
					"such as 1m"));
	}

	@Test
	void releasedRowRetentionShorterThanAMillisecondFailsAtStartup() {
		// It started, and the statements, which count the retention in whole
		// milliseconds, deleted each released row at the release after it: the order of
		// fencing tokens that the retention keeps was not kept.
		this.contextRunner.withPropertyValues("distributelock.jdbc.released-row-retention=500us")
			.run((context) -> assertFailure(context,
					"distributelock.jdbc.released-row-retention is PT0.0005S, shorter than 1 ms: the lock statements "
							+ "count it in whole milliseconds",
					"Set distributelock.jdbc.released-row-retention to 1ms or more"));
		this.contextRunner.withPropertyValues("distributelock.jdbc.released-row-retention=1ms")
			.run((context) -> assertThat(context.getBean(JdbcLockBackend.class).releasedRowRetention())
				.isEqualTo(Duration.ofMillis(1)));
	}

	@Test
	void statementTimeoutIsTenSecondsByDefaultAndConfigurable() {
		this.contextRunner.run((context) -> assertThat(context.getBean(JdbcLockBackend.class).statementTimeout())
			.isEqualTo(Duration.ofSeconds(10)));
		this.contextRunner.withPropertyValues("distributelock.jdbc.statement-timeout=2500ms")
			.run((context) -> assertThat(context.getBean(JdbcLockBackend.class).statementTimeout())
				.as("rounded up to whole seconds, as JDBC counts them")
				.isEqualTo(Duration.ofSeconds(3)));
		this.contextRunner.withPropertyValues("distributelock.jdbc.statement-timeout=0")
			.run((context) -> assertThat(context.getBean(JdbcLockBackend.class).statementTimeout()).isZero());
	}

	@Test
	void negativeStatementTimeoutFailsAtStartup() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.statement-timeout=-1s")
			.run((context) -> assertFailure(context, "distributelock.jdbc.statement-timeout must be zero or positive",
					"such as 10s, or to 0 for no bound"));
	}

	@Test
	void unknownDialectFailsAtStartup() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.dialect=oracle")
			.run((context) -> assertFailure(context,
					"distributelock.jdbc.dialect is 'oracle', which is not a JDBC lock dialect.",
					"distributelock.jdbc.dialect to postgresql (PostgreSQL), h2 (H2 2.x), "
							+ "mariadb (MariaDB 10.5 or later) or mysql (MySQL 8.0 or later)"));
	}

	@Test
	void misspelledDialectFailsAtStartupListingTheDialectsAndNothingAboutTables() {
		this.contextRunner.withPropertyValues("distributelock.jdbc.dialect=mysq").run((context) -> {
			assertFailure(context, "distributelock.jdbc.dialect is 'mysq'", "mysql (MySQL 8.0 or later)");
			assertThat(context.getStartupFailure()).rootCause().message().doesNotContainIgnoringCase("table");
		});
	}

	@Test
	void unsupportedDatabaseFailsAtStartup() throws SQLException {
		DataSource derby = dataSourceReporting("Apache Derby", "10.16.1.1");
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc")
			.withBean(DataSource.class, () -> derby)
			.run((context) -> assertFailure(context, "does not support Apache Derby 10.16.1.1",
					"Keep the locks in PostgreSQL, H2 2.x, MariaDB 10.5 or later or MySQL 8.0 or later"));
	}

	@Test
	void mySqlWithNoDialectSetPicksTheMySqlDialect() throws SQLException {
		DataSource mySql = dataSourceReporting("MySQL", "8.4.0");
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc")
			.withBean(DataSource.class, () -> mySql)
			.run((context) -> assertThat(context.getBean(JdbcLockBackend.class).dialect()).isEqualTo("mysql"));
	}

	@Test
	void mySqlBefore80FailsAtStartupSayingWhy() throws SQLException {
		DataSource mySql = dataSourceReporting("MySQL", "5.7.44");
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc")
			.withBean(DataSource.class, () -> mySql)
			.run((context) -> assertFailure(context,
					"does not support MySQL 5.7.44: the mysql dialect is made and " + "tested for MySQL 8.0 or later",
					"MySQL 8.0 or later"));
	}

	@Test
	void mariaDbDialectOnMySqlFailsAtStartupNamingBoth() throws SQLException {
		assertMismatch("mariadb", "MySQL", "8.0.36",
				"The JDBC lock dialect 'mariadb' does not fit the database, MySQL 8.0.36, whose dialect is 'mysql'.",
				"Set distributelock.jdbc.dialect to mysql, or remove it");
	}

	@Test
	void postgresqlDialectOnMariaDbFailsAtStartupNamingBoth() throws SQLException {
		assertMismatch("postgresql", "MariaDB", "11.4.5-MariaDB",
				"The JDBC lock dialect 'postgresql' does not fit the database, MariaDB 11.4.5-MariaDB, whose dialect "
						+ "is 'mariadb'.",
				"Set distributelock.jdbc.dialect to mariadb");
	}

	@Test
	void mySqlDialectOnMariaDbThroughAMySqlDriverFailsAtStartupNamingBoth() throws SQLException {
		assertMismatch("mysql", "MySQL", "5.5.5-10.11.6-MariaDB",
				"The JDBC lock dialect 'mysql' does not fit the database, MySQL 5.5.5-10.11.6-MariaDB, whose dialect "
						+ "is 'mariadb'.",
				"Set distributelock.jdbc.dialect to mariadb");
	}

	@Test
	void dialectOnADatabaseNoDialectServesFailsAtStartupNamingBoth() throws SQLException {
		assertMismatch("postgresql", "Apache Derby", "10.16.1.1",
				"The JDBC lock dialect 'postgresql' does not fit the database, Apache Derby 10.16.1.1, which no "
						+ "dialect serves.",
				"Keep the locks in PostgreSQL, H2 2.x, MariaDB 10.5 or later or MySQL 8.0 or later");
	}

	@Test
	void mariaDbBefore105WithTheDialectSetFailsAtStartupSayingWhy() throws SQLException {
		assertMismatch("mariadb", "MariaDB", "10.4.34-MariaDB", "MariaDB before 10.5 has no INSERT ... RETURNING",
				"MariaDB 10.5 or later");
	}

	@Test
	void aDialectThatDoesNotFitARealMariaDbFailsAtStartupNamingBoth() {
		JdbcTestDatabase mariaDb = databases.get("mariadb");
		runOn(mariaDb, "postgresql").run((context) -> assertFailure(context,
				"The JDBC lock dialect 'postgresql' does not fit the database, MariaDB ", "mariadb"));
		runOn(mariaDb, null)
			.run((context) -> assertThat(context.getBean(JdbcLockBackend.class).dialect()).isEqualTo("mariadb"));
	}

	/** Skipped, as every MySQL test, where mysqld cannot run; CI requires it. */
	@Test
	void aDialectThatDoesNotFitARealMySqlFailsAtStartupNamingBoth() {
		JdbcTestDatabase mySql = databases.get("mysql");
		runOn(mySql, "mariadb").run((context) -> assertFailure(context,
				"The JDBC lock dialect 'mariadb' does not fit the database, MySQL ", "mysql"));
		runOn(mySql, null)
			.run((context) -> assertThat(context.getBean(JdbcLockBackend.class).dialect()).isEqualTo("mysql"));
	}

	private static ApplicationContextRunner runOn(JdbcTestDatabase database, @Nullable String dialect) {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataSourceAutoConfiguration.class, DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc", "spring.datasource.url=" + database.jdbcUrl(),
					"spring.datasource.username=" + database.username());
		return (dialect != null) ? runner.withPropertyValues("distributelock.jdbc.dialect=" + dialect) : runner;
	}

	private static void assertMismatch(String dialect, String productName, String productVersion, String description,
			String action) throws SQLException {
		DataSource database = dataSourceReporting(productName, productVersion);
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc", "distributelock.jdbc.dialect=" + dialect)
			.withBean(DataSource.class, () -> database)
			.run((context) -> assertFailure(context, description, action));
	}

	@Test
	void missingDataSourceFailsAtStartup() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
			.withPropertyValues("distributelock.type=jdbc")
			.run((context) -> assertFailure(context, "needs a DataSource bean",
					"org.springframework.boot:spring-boot-starter-jdbc"));
	}

	@Test
	void missingSpringJdbcFailsAtStartupNamingTheStarter() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(JdbcTemplate.class))
			.run((context) -> assertFailure(context, "org.springframework.jdbc.core.JdbcTemplate",
					"org.springframework.boot:spring-boot-starter-jdbc"));
	}

	@Test
	void userDefinedBackendWins() {
		LockBackend custom = mock(LockBackend.class);
		this.contextRunner.withBean(LockBackend.class, () -> custom).run((context) -> {
			assertThat(context).doesNotHaveBean(JdbcLockBackend.class);
			assertThat(context.getBean(LockBackend.class)).isSameAs(custom);
		});
	}

	private static int tableCount(AssertableApplicationContext context, String table) {
		Integer count = new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
				"SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = ?", Integer.class, table);
		return (count != null) ? count : 0;
	}

	private static void assertFailure(AssertableApplicationContext context, String description, String action) {
		assertThat(context).hasFailed();
		assertThat(context.getStartupFailure()).rootCause()
			.isInstanceOfSatisfying(DistributeLockConfigurationException.class, (ex) -> {
				assertThat(ex.getDescription()).contains(description);
				assertThat(ex.getAction()).contains(action);
			});
	}

	private static DataSource dataSourceReporting(String productName, String productVersion) throws SQLException {
		DatabaseMetaData metaData = mock(DatabaseMetaData.class);
		given(metaData.getDatabaseProductName()).willReturn(productName);
		given(metaData.getDatabaseProductVersion()).willReturn(productVersion);
		Connection connection = mock(Connection.class);
		given(connection.getMetaData()).willReturn(metaData);
		// Only the metadata is there: a statement, such as the check that the database
		// records no shard list, fails as on a database that is down.
		given(connection.prepareStatement(anyString())).willThrow(new SQLException("No database behind the mock"));
		DataSource dataSource = mock(DataSource.class);
		given(dataSource.getConnection()).willReturn(connection);
		return dataSource;
	}

}
