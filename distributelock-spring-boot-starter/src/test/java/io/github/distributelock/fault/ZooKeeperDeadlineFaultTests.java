package io.github.distributelock.fault;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.core.CountingLockBackend;
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
import static org.awaitility.Awaitility.await;

/**
 * A caller's deadline on a slow or vanishing ZooKeeper server.
 */
class ZooKeeperDeadlineFaultTests extends AbstractDeadlineFaultTests {

	private static final int CONNECTION_TIMEOUT_MILLIS = 1_000;

	private static final int RETRIES = 1;

	private static final int BASE_RETRY_SLEEP_MILLIS = 100;

	private static TestingServer server;

	private final Map<Integer, CuratorFramework> clients = new ConcurrentHashMap<>();

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
	protected LockBackend newBackend(int port) throws Exception {
		// The session outlives the outages of these tests.
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString("127.0.0.1:" + port)
			.sessionTimeoutMs(30_000)
			.connectionTimeoutMs(CONNECTION_TIMEOUT_MILLIS)
			.retryPolicy(new ExponentialBackoffRetry(BASE_RETRY_SLEEP_MILLIS, RETRIES))
			.build();
		client.start();
		closeAfter(client);
		this.clients.put(port, client);
		assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
		return new ZooKeeperLockBackend(client);
	}

	/**
	 * A caller whose watch of the holder's node was already in place when the connection
	 * dropped keeps it: ZooKeeper sets it again once the client is back in its session,
	 * and fires it then for a node deleted meanwhile. Such a caller makes no attempt
	 * while the store is away, so its client's loss of the connection is what shows it is
	 * cut off.
	 */
	@Override
	protected void awaitCallerCutOff(int callerPort, CountingLockBackend caller, int attemptsBefore, Duration wait) {
		CuratorFramework client = this.clients.get(callerPort);
		await().atMost(wait)
			.until(() -> caller.acquireAttempts.get() >= attemptsBefore + 2
					|| !client.getZookeeperClient().isConnected());
	}

	@Override
	protected int storePort() {
		return server.getPort();
	}

	@Override
	protected String backendName() {
		return "ZooKeeper";
	}

	/**
	 * Curator waits up to the connection timeout for a connection on each try, and sleeps
	 * up to twice the base sleep time before the retry.
	 */
	@Override
	protected Duration storeCallTimeout() {
		return Duration.ofMillis((RETRIES + 1) * CONNECTION_TIMEOUT_MILLIS + 2 * BASE_RETRY_SLEEP_MILLIS);
	}

	/**
	 * Two round trips: an attempt on a busy key is a create that finds the node, then a
	 * read of it, as Curator retries a create whose answer was lost with the connection
	 * and the node that retry finds may be this owner's own.
	 */
	@Override
	protected Duration allowedOverrun() {
		return ROUND_TRIP.multipliedBy(2);
	}

}
