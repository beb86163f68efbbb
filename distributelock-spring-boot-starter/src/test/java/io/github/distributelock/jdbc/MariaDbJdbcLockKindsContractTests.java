package io.github.distributelock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The kinds of lock on mariadb.
 */
class MariaDbJdbcLockKindsContractTests extends AbstractJdbcLockKindsContractTests {

	private static JdbcTestDatabase database;

	@BeforeAll
	static void startDatabase() {
		database = JdbcTestDatabase.start("mariadb");
	}

	@AfterAll
	static void stopDatabase() throws Exception {
		if (database != null) {
			database.close();
		}
	}

	@Override
	JdbcTestDatabase database() {
		return database;
	}

}
