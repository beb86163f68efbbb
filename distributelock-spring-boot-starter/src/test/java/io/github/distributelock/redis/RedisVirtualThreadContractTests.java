package io.github.distributelock.redis;

import java.util.concurrent.ExecutorService;

import io.github.distributelock.core.VirtualThreadContract;
import io.github.distributelock.core.VirtualThreads;
import org.junit.jupiter.api.Test;

/**
 * The Redis contract on a real redis-server with every concurrent caller on a virtual
 * thread: mutual exclusion, waiting woken by release, hand-over between local threads and
 * shutdown all work when callers are virtual threads.
 */
@VirtualThreadContract
class RedisVirtualThreadContractTests extends RedisLockBackendContractTests {

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
