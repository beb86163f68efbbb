package io.github.distributelock.fault;

import java.time.Duration;
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
 * Connection cuts between a Curator client and a real ZooKeeper server: the lease is the
 * session timeout.
 */
class ZooKeeperConnectionCutTests extends AbstractConnectionCutTests {

	private static TestingServer server;

	private static CuratorFramework inspection;

	@BeforeAll
	static void startZooKeeper() throws Exception {
		server = EmbeddedZooKeeper.startServer();
		inspection = EmbeddedZooKeeper.newClient(server.getConnectString(), LEASE);
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		try {
			if (inspection != null) {
				inspection.close();
			}
		}
		finally {
			if (server != null) {
				server.close();
			}
		}
	}

	@Override
	protected LockBackend newBackend(int port) throws Exception {
		return newBackend(port, LEASE);
	}

	@Override
	protected LockBackend newLongLeaseBackend(int port) throws Exception {
		return newBackend(port, Duration.ofSeconds(60));
	}

	private LockBackend newBackend(int port, Duration sessionTimeout) throws Exception {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString("127.0.0.1:" + port)
			.sessionTimeoutMs((int) sessionTimeout.toMillis())
			.connectionTimeoutMs(2_000)
			.retryPolicy(new ExponentialBackoffRetry(100, 1))
			.build();
		client.start();
		closeAfter(client);
		assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
		return new ZooKeeperLockBackend(client);
	}

	@Override
	protected int storePort() {
		return server.getPort();
	}

	@Override
	protected boolean isLocked(String key) throws Exception {
		return inspection.checkExists().forPath(ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key) != null;
	}

	@Override
	protected String backendName() {
		return "ZooKeeper";
	}

}
