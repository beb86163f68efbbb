package io.github.distributelock.fault;

import java.time.Duration;
import java.util.List;

import io.github.distributelock.core.LockBackend;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The multi-process faults on a real ZooKeeper server: the lease is the session timeout
 * of the worker's client, after which the server removes its ephemeral lock node.
 */
class ZooKeeperMultiProcessFaultTests extends AbstractMultiProcessFaultTests {

	private static final long SESSION_TIMEOUT_MILLIS = 4000;

	private static TestingServer server;

	private static CuratorFramework client;

	@BeforeAll
	static void startZooKeeper() throws Exception {
		server = EmbeddedZooKeeper.startServer();
		client = EmbeddedZooKeeper.newClient(server.getConnectString(), Duration.ofMillis(SESSION_TIMEOUT_MILLIS));
	}

	@AfterAll
	static void stopZooKeeper() throws Exception {
		try {
			if (client != null) {
				client.close();
			}
		}
		finally {
			if (server != null) {
				server.close();
			}
		}
	}

	@Override
	protected List<String> backendArguments() {
		return List.of("backend=zookeeper", "zkConnect=" + server.getConnectString(),
				"sessionTimeoutMs=" + SESSION_TIMEOUT_MILLIS);
	}

	@Override
	protected LockBackend newBackend() {
		return new ZooKeeperLockBackend(client);
	}

	@Override
	protected boolean isLocked(String key) throws Exception {
		return client.checkExists().forPath(ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key) != null;
	}

	@Override
	protected long leaseMillis() {
		return SESSION_TIMEOUT_MILLIS;
	}

	@Override
	protected boolean renewsLeases() {
		return false;
	}

	@Override
	protected String backendName() {
		return "ZooKeeper";
	}

}
