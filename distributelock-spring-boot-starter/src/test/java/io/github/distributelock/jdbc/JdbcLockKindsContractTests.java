package io.github.distributelock.jdbc;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * The kinds of lock ({@link AbstractJdbcLockKindsContractTests}) on each database, each
 * started once for the whole test run.
 */
class JdbcLockKindsContractTests {

	@Nested
	class OnH2 extends AbstractJdbcLockKindsContractTests {

		OnH2() {
			super("h2");
		}

	}

	@Nested
	class OnPostgreSql extends AbstractJdbcLockKindsContractTests {

		OnPostgreSql() {
			super("postgresql");
		}

	}

	@Nested
	class OnMariaDb extends AbstractJdbcLockKindsContractTests {

		OnMariaDb() {
			super("mariadb");
		}

	}

	/** On a real MySQL 8.0.12 server, skipped with a warning where it cannot run. */
	@Nested
	@EnabledIf("io.github.distributelock.jdbc.EmbeddedMySql#available")
	class OnMySql extends AbstractJdbcLockKindsContractTests {

		OnMySql() {
			super("mysql");
		}

	}

}
