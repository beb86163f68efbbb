package io.github.distributelock.zookeeper;

import java.util.concurrent.ExecutorService;

import io.github.distributelock.core.VirtualThreadContract;
import io.github.distributelock.core.VirtualThreads;
import org.junit.jupiter.api.Test;

/**
 * The ZooKeeper contract on a real server with every concurrent caller on a virtual
 * thread, waiting on the watches of Curator's client.
 */
@VirtualThreadContract
class ZooKeeperVirtualThreadContractTests extends ZooKeeperLockBackendContractTests {

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
