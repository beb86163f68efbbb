package io.github.distributelock.redis;

import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.core.AbstractAsyncCancelFuzzTests;
import io.github.distributelock.core.LockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Non-blocking calls ended by their callers ({@link AbstractAsyncCancelFuzzTests}) on a
 * real redis-server, whose every key of a lock is read back: the lock word, the readers
 * and permit holders, the fair queue and the waiters' leases.
 */
class RedisAsyncCancelFuzzTests extends AbstractAsyncCancelFuzzTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Override
	protected LockBackend newBackend() {
		return RedisLockKindsContractTests.backend(redis.newConnectionFactory(), RedisKindScripts.WAITER_LEASE);
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return RedisLockKindsContractTests.isLocked(redis.store(), key);
	}

	/**
	 * Every Redis key of the lock keys but the fencing counter and the readers' and
	 * permit holders' recent releases, which stay until they have been idle for a while.
	 */
	@Override
	protected List<String> leftInStore(List<String> keys) {
		List<String> left = new ArrayList<>();
		for (String key : keys) {
			try (Cursor<String> cursor = redis.store()
				.scan(ScanOptions.scanOptions().match("*" + key + "*").count(1_000).build())) {
				cursor.forEachRemaining((name) -> {
					if (!name.endsWith("}:fence") && !name.endsWith("}:releases")) {
						left.add(name);
					}
				});
			}
		}
		return left;
	}

}
