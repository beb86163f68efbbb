package io.github.distributelock.jdbc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The contract on postgresql.
 */
class PostgresJdbcLockBackendContractTests extends AbstractJdbcLockBackendContractTests {

	private static JdbcTestDatabase database;

	@BeforeAll
	static void startDatabase() {
		database = JdbcTestDatabase.start("postgresql");
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
