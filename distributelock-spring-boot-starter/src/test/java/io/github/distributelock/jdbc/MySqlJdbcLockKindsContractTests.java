package io.github.distributelock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The kinds of lock on mysql, on a real MySQL 8.0.12 server ({@link EmbeddedMySql}).
 */
class MySqlJdbcLockKindsContractTests extends AbstractJdbcLockKindsContractTests {

	private static JdbcTestDatabase database;

	@BeforeAll
	static void startDatabase() {
		database = JdbcTestDatabase.start("mysql");
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
