package io.github.distributelock.jdbc;

import java.util.concurrent.ExecutorService;

import io.github.distributelock.core.VirtualThreadContract;
import io.github.distributelock.core.VirtualThreads;
import org.junit.jupiter.api.Test;

/**
 * The JDBC contract on a real PostgreSQL server with every concurrent caller on a virtual
 * thread, blocking in the PostgreSQL driver's socket reads and in the pool.
 */
@VirtualThreadContract
class PostgresVirtualThreadContractTests extends PostgresJdbcLockBackendContractTests {

	/** A new virtual thread per task, whatever the number asked for. */
	@Override
	protected ExecutorService newExecutor(int threads) {
		return VirtualThreads.newExecutor();
	}

	@Test
	void callersRunOnVirtualThreads() throws Exception {
		VirtualThreads.assertCallersRunOnVirtualThreads(callers());
	}

}
