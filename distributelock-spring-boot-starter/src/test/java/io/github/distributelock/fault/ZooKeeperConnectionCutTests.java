package io.github.distributelock.fault;

import java.time.Duration;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.EmbeddedZooKeeperExtension;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Connection cuts between a Curator client and a real ZooKeeper server: the lease is the
 * session timeout.
 */
class ZooKeeperConnectionCutTests extends AbstractConnectionCutTests {

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@Override
	protected LockBackend newBackend(int port) throws Exception {
		return newBackend(port, LEASE);
	}

	@Override
	protected LockBackend newLongLeaseBackend(int port) throws Exception {
		return newBackend(port, Duration.ofSeconds(60));
	}

	/** A quick client: its 2 s connection timeout is below the lease. */
	private LockBackend newBackend(int port, Duration sessionTimeout) throws Exception {
		return new ZooKeeperLockBackend(
				closeAfter(EmbeddedZooKeeper.newQuickClient("127.0.0.1:" + port, sessionTimeout)));
	}

	@Override
	protected int storePort() {
		return zooKeeper.port();
	}

	@Override
	protected boolean isLocked(String key) throws Exception {
		return zooKeeper.store().checkExists().forPath(ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key) != null;
	}

	@Override
	protected String backendName() {
		return "ZooKeeper";
	}

}
