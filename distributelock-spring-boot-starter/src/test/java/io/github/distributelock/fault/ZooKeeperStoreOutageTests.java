package io.github.distributelock.fault;

import java.time.Duration;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.EmbeddedZooKeeperExtension;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A ZooKeeper server stopped and started again on the same port and data under held and
 * awaited locks: the lease is the session, which the clients lose while it is down.
 */
class ZooKeeperStoreOutageTests extends AbstractStoreOutageTests {

	/** Its own server, as the test stops it. */
	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = EmbeddedZooKeeperExtension.ofItsOwn();

	/**
	 * A quick client: one retry and a 2 s connection timeout bound a call to a dead
	 * server.
	 */
	@Override
	protected LockBackend newBackend() throws Exception {
		return new ZooKeeperLockBackend(closeAfter(EmbeddedZooKeeper.newQuickClient(zooKeeper.connectString(), LEASE)));
	}

	/**
	 * Curator waits up to the connection timeout for a connection on each try, and sleeps
	 * up to twice the base sleep time before the retry.
	 */
	@Override
	protected Duration storeCallTimeout() {
		return EmbeddedZooKeeper.QUICK_CONNECTION_TIMEOUT.multipliedBy(EmbeddedZooKeeper.QUICK_RETRIES + 1)
			.plus(EmbeddedZooKeeper.QUICK_BASE_RETRY_SLEEP.multipliedBy(2));
	}

	@Override
	protected void stopStore() throws Exception {
		zooKeeper.stop();
	}

	@Override
	protected void startStore() throws Exception {
		zooKeeper.restart();
	}

	@Override
	protected String backendName() {
		return "ZooKeeper";
	}

}
