package io.github.distributelock.fault;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.JdbcTestDatabase;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connection cuts between a connection pool and a real PostgreSQL server: the lease is
 * the watchdog lease, on the database clock.
 */
class PostgresConnectionCutTests extends AbstractConnectionCutTests {

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");

	private static JdbcTestDatabase postgres() {
		return databases.get("postgresql");
	}

	/** A pool reaching the server on {@code port}, whose waits stay below the lease. */
	@Override
	protected LockBackend newBackend(int port) {
		return new JdbcLockBackend(closeAfter(postgres().newDataSource((config) -> {
			// 1 s for a connection, 2 s for an answer.
			config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=1&socketTimeout=2");
			config.setConnectionTimeout(1_000);
		})));
	}

	@Override
	protected int storePort() {
		return postgres().port();
	}

	@Override
	protected boolean isLocked(String key) {
		return postgres().isLocked(key);
	}

	@Override
	protected String backendName() {
		return "PostgreSQL";
	}

	@Override
	@Test
	@Disabled("JdbcLockBackend does not implement MultiKeyLockBackend: it takes the keys of a multi-key request "
			+ "one after the other, not in one batch, so there is no batch answer to lose; its multi-key path under "
			+ "a partition is "
			+ "multiKeyCallerInterruptedInAStoreCallDuringAPartitionGetsInterruptedExceptionAndLeavesNothing")
	void multiKeyAttemptWhoseAnswerIsLostIsGivenBackBeforeItIsTriedAgain() {
	}

}
