package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.DirectoryUtils;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.FourLetterWordMain;

/**
 * Real ZooKeeper servers from curator-test, on free loopback ports, and the clients and
 * faults the tests need. Tests share one server through
 * {@link EmbeddedZooKeeperExtension}; a test that stops a server or needs an ensemble
 * starts its own here.
 */
public final class EmbeddedZooKeeper {

	/** How long a {@link #newQuickClient quick client} waits for a connection. */
	public static final Duration QUICK_CONNECTION_TIMEOUT = Duration.ofSeconds(2);

	/** How often a {@link #newQuickClient quick client} retries an operation. */
	public static final int QUICK_RETRIES = 1;

	/** The base sleep of a {@link #newQuickClient quick client} before a retry. */
	public static final Duration QUICK_BASE_RETRY_SLEEP = Duration.ofMillis(100);

	private static final String LOOPBACK = "127.0.0.1";

	static {
		// Test data need not survive a power cut: skip fsync so thousands of writes stay
		// fast.
		System.setProperty("zookeeper.forceSync", "no");
		// Check for empty container nodes every half second instead of every minute.
		System.setProperty("znode.container.checkIntervalMs", "500");
	}

	private EmbeddedZooKeeper() {
	}

	/** A started single server; close it to stop it and delete its data. */
	public static TestingServer startServer() throws Exception {
		InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1, Map.of("clientPortAddress", LOOPBACK),
				LOOPBACK);
		return new TestingServer(spec, true);
	}

	/** A started ensemble of {@code size} servers; close it to stop them. */
	public static TestingCluster startCluster(int size) throws Exception {
		List<InstanceSpec> specs = new ArrayList<>();
		Set<Integer> taken = new HashSet<>();
		for (int id = 1; id <= size; id++) {
			InstanceSpec spec = newSpec(id);
			// Each port is one the system had free a moment ago, which it may hand out
			// again: two servers on one port make the ensemble fail at start.
			while (!Collections.disjoint(taken, ports(spec)) || ports(spec).size() < 3) {
				DirectoryUtils.deleteRecursively(spec.getDataDirectory());
				spec = newSpec(id);
			}
			taken.addAll(ports(spec));
			specs.add(spec);
		}
		TestingCluster cluster = new TestingCluster(specs);
		try {
			cluster.start();
			return cluster;
		}
		catch (Exception ex) {
			cluster.close();
			throw ex;
		}
	}

	private static InstanceSpec newSpec(int serverId) {
		return new InstanceSpec(null, -1, -1, -1, true, serverId, -1, -1, Map.of("clientPortAddress", LOOPBACK),
				LOOPBACK);
	}

	private static Set<Integer> ports(InstanceSpec spec) {
		return new HashSet<>(List.of(spec.getPort(), spec.getElectionPort(), spec.getQuorumPort()));
	}

	/** A started client, connected; the caller closes it. */
	public static CuratorFramework newClient(String connectString, Duration sessionTimeout) throws Exception {
		return newClient(CuratorFrameworkFactory.builder().connectString(connectString), sessionTimeout);
	}

	/** A client from {@code builder}, started and connected; the caller closes it. */
	public static CuratorFramework newClient(CuratorFrameworkFactory.Builder builder, Duration sessionTimeout)
			throws Exception {
		return connect(builder.connectionTimeoutMs(5_000).retryPolicy(new ExponentialBackoffRetry(100, 5)),
				sessionTimeout);
	}

	/**
	 * A client that gives up on a server it cannot reach within seconds: it waits
	 * {@link #QUICK_CONNECTION_TIMEOUT} for a connection, then retries
	 * {@link #QUICK_RETRIES} time after up to twice {@link #QUICK_BASE_RETRY_SLEEP};
	 * started and connected, the caller closes it.
	 */
	public static CuratorFramework newQuickClient(String connectString, Duration sessionTimeout) throws Exception {
		return connect(
				CuratorFrameworkFactory.builder()
					.connectString(connectString)
					.connectionTimeoutMs((int) QUICK_CONNECTION_TIMEOUT.toMillis())
					.retryPolicy(new ExponentialBackoffRetry((int) QUICK_BASE_RETRY_SLEEP.toMillis(), QUICK_RETRIES)),
				sessionTimeout);
	}

	private static CuratorFramework connect(CuratorFrameworkFactory.Builder builder, Duration sessionTimeout)
			throws Exception {
		CuratorFramework client = builder.sessionTimeoutMs((int) sessionTimeout.toMillis()).build();
		client.start();
		if (!client.blockUntilConnected(20, TimeUnit.SECONDS)) {
			client.close();
			throw new IllegalStateException("Could not connect to ZooKeeper at " + builder.getEnsembleProvider());
		}
		return client;
	}

	/**
	 * Ends the client's session on the server, as an expiry does: a second connection
	 * joins the session and closes it, so the server removes its ephemeral nodes at once
	 * and the client is told its session expired when it next talks to the server.
	 */
	public static void expireSession(CuratorFramework client, String connectString) throws Exception {
		ZooKeeper zooKeeper = client.getZookeeperClient().getZooKeeper();
		expireSession(zooKeeper.getSessionId(), zooKeeper.getSessionPasswd(), connectString);
	}

	/**
	 * Ends the session {@code sessionId} on the server, as an expiry does, through a
	 * second connection that joins it and closes it: for a session that no client handle
	 * uses any more. A session the server has ended already counts as ended: a handle
	 * told by a test that its session expired may still have closed it on the server as
	 * Curator replaced it.
	 */
	public static void expireSession(long sessionId, byte[] password, String connectString) throws Exception {
		CountDownLatch connected = new CountDownLatch(1);
		Watcher watcher = (event) -> {
			if (event.getState() == Watcher.Event.KeeperState.SyncConnected
					|| event.getState() == Watcher.Event.KeeperState.Expired) {
				connected.countDown();
			}
		};
		ZooKeeper twin = new ZooKeeper(connectString, 10_000, watcher, sessionId, password);
		try {
			if (!connected.await(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Could not join session 0x" + Long.toHexString(sessionId));
			}
		}
		finally {
			twin.close();
		}
	}

	/** The lock key that a lock node named {@code nodeName} stands for. */
	public static String lockKeyOf(String nodeName) {
		return ZooKeeperLockPaths.keyOf(nodeName);
	}

	/** Whether the server of {@code spec} is the ensemble's leader, asked with srvr. */
	public static boolean isLeader(InstanceSpec spec) {
		try {
			return FourLetterWordMain.send4LetterWord(LOOPBACK, spec.getPort(), "srvr").contains("Mode: leader");
		}
		catch (Exception ex) {
			return false;
		}
	}

}
