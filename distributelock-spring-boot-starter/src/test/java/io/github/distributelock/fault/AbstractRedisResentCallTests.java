package io.github.distributelock.fault;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockTracker;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the tests of calls that Lettuce sends again after a dropped connection share: one
 * server, reached through a proxy that can cut and delay the traffic, and the loss
 * reports of the locks they take.
 */
abstract class AbstractRedisResentCallTests {

	static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	final List<String> lossReports = new CopyOnWriteArrayList<>();

	private final LockEventListener events = (key, name, backend) -> new LockTracker() {

		@Override
		public void lost(String reason) {
			AbstractRedisResentCallTests.this.lossReports.add(key + ": " + reason);
		}

	};

	@RegisterExtension
	final ProxiedRedis store = new ProxiedRedis(redis);

	DefaultDistributeLock throwingOnLost(RedisLockBackend backend) {
		return new DefaultDistributeLock(backend, LEASE, true, this.events, null);
	}

	/**
	 * Loads the scripts of a request's kind into the server before the traffic is
	 * delayed.
	 */
	static void warm(DefaultDistributeLock lock, LockRequest request) throws Exception {
		lock.tryAcquire(request).orElseThrow().close();
	}

	static AtomicBoolean onLost(LockHandle handle) {
		AtomicBoolean told = new AtomicBoolean();
		handle.onLost((lost) -> told.set(true));
		return told;
	}

}
