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
 * A ZooKeeper server stopped and started again on the same port and data under held and
 * awaited locks: the lease is the session, which the clients lose while it is down.
 */
class ZooKeeperStoreOutageTests extends AbstractStoreOutageTests {

	private static final int CONNECTION_TIMEOUT_MILLIS = 2_000;

	private static final int RETRIES = 1;

	private static final int BASE_RETRY_SLEEP_MILLIS = 100;

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
			.connectionTimeoutMs(CONNECTION_TIMEOUT_MILLIS)
			.retryPolicy(new ExponentialBackoffRetry(BASE_RETRY_SLEEP_MILLIS, RETRIES))
			.build();
		client.start();
		closeAfter(client);
		assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
		return new ZooKeeperLockBackend(client);
	}

	/**
	 * Curator waits up to the connection timeout for a connection on each try, and sleeps
	 * up to twice the base sleep time before the retry.
	 */
	@Override
	protected Duration storeCallTimeout() {
		return Duration.ofMillis((RETRIES + 1) * CONNECTION_TIMEOUT_MILLIS + 2 * BASE_RETRY_SLEEP_MILLIS);
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
