package io.github.distributelock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract on mariadb.
 */
class MariaDbJdbcLockBackendContractTests extends AbstractJdbcLockBackendContractTests {

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

	@Test
	void statementThatDrewItsTokenBeforeALaterHolderCannotUseItAfterThatHolderReleased() throws Exception {
		assertAStatementThatDrewItsTokenBeforeALaterHolderCannotUseItAfterwards();
	}

}
