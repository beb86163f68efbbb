package io.github.distributelock.fault;

import java.util.concurrent.TimeUnit;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ZooKeeper server stopped and started again on the same port and data under held and
 * awaited locks: the lease is the session, which the clients lose while it is down.
 */
class ZooKeeperStoreOutageTests extends AbstractStoreOutageTests {

	private static TestingServer server;

	@BeforeAll
	static void startZooKeeper() throws Exception {
		server = EmbeddedZooKeeper.startServer();
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		if (server != null) {
			server.close();
		}
	}

	@Override
	protected LockBackend newBackend() throws Exception {
		// One retry and a 2 s connection timeout bound a call to a dead server.
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(server.getConnectString())
			.sessionTimeoutMs((int) LEASE.toMillis())
			.connectionTimeoutMs(2_000)
			.retryPolicy(new ExponentialBackoffRetry(100, 1))
			.build();
		client.start();
		closeAfter(client);
		assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
		return new ZooKeeperLockBackend(client);
	}

	@Override
	protected void stopStore() throws Exception {
		server.stop();
	}

	@Override
	protected void startStore() throws Exception {
		server.restart();
	}

	@Override
	protected String backendName() {
		return "ZooKeeper";
	}

}
