package io.github.distributelock.zookeeper;

import java.time.Duration;

import io.github.distributelock.core.AbstractAsyncCancelFuzzTests;
import io.github.distributelock.core.LockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Non-blocking calls ended by their callers ({@link AbstractAsyncCancelFuzzTests}) on a
 * real ZooKeeper server, read back from the tree: a lock's node and the queue of every
 * kind below it.
 */
class ZooKeeperAsyncCancelFuzzTests extends AbstractAsyncCancelFuzzTests {

	private static final ZooKeeperLockPaths PATHS = new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@Override
	protected LockBackend newBackend() {
		try {
			// Closed after the backend, which is registered later.
			CuratorFramework client = closeAfterTest(zooKeeper.newClient(Duration.ofSeconds(10)));
			return new ZooKeeperLockBackend(client);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Held, or queued for: an ephemeral lock node, or a node with a claim below it. */
	@Override
	protected boolean isLockedInStore(String key) {
		try {
			Stat stat = zooKeeper.store().checkExists().forPath(PATHS.lockPath(key));
			return stat != null && (stat.getEphemeralOwner() != 0 || stat.getNumChildren() > 0);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
