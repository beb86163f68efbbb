package io.github.distributelock.zookeeper;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import io.github.distributelock.StoreExtension;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;

/**
 * The tests' ZooKeeper server (curator-test, {@link EmbeddedZooKeeper}): one real server
 * on a free loopback port for the whole test run, with no lock node under {@code /locks}
 * when a class starts. <pre class="code">
 * &#64;RegisterExtension
 * static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();
 * </pre> A class whose tests stop and restart the server has one of
 * {@linkplain #ofItsOwn() its own}; a test that needs an ensemble starts it with
 * {@link EmbeddedZooKeeper}.
 */
public final class EmbeddedZooKeeperExtension extends StoreExtension<EmbeddedZooKeeperExtension.Server> {

	/** The session timeout of the client that reads the store. */
	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

	/** The server shared by the whole test run. */
	public EmbeddedZooKeeperExtension() {
		this(true);
	}

	private EmbeddedZooKeeperExtension(boolean shared) {
		super(Server.class, "ZooKeeper server", shared);
	}

	/**
	 * A server for the class alone, which its tests may {@link #stop()} and
	 * {@link #restart()}: started before its first test, stopped after its last.
	 */
	public static EmbeddedZooKeeperExtension ofItsOwn() {
		return new EmbeddedZooKeeperExtension(false);
	}

	@Override
	protected Server start() {
		try {
			TestingServer server = EmbeddedZooKeeper.startServer();
			try {
				return new Server(server, EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
			}
			catch (Exception ex) {
				server.close();
				throw ex;
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not start the tests' ZooKeeper server", ex);
		}
	}

	@Override
	protected void deleteAllLocks(Server server) throws Exception {
		try {
			server.store().delete().deletingChildrenIfNeeded().forPath(ZooKeeperLockBackend.DEFAULT_ROOT);
		}
		catch (KeeperException.NoNodeException ex) {
			// No lock was taken under the default root yet, or the server removed the
			// empty container.
		}
	}

	public String connectString() {
		return started().server().getConnectString();
	}

	public int port() {
		return started().server().getPort();
	}

	/** A client of its own, to read the store directly. */
	public CuratorFramework store() {
		return started().store();
	}

	/** The children of {@code path}, read directly; none if it does not exist. */
	public List<String> children(String path) throws Exception {
		return ZooKeeperTree.children(store(), path);
	}

	/**
	 * A new started client, connected, as another instance would have; the caller closes
	 * it.
	 */
	public CuratorFramework newClient(Duration sessionTimeout) throws Exception {
		return EmbeddedZooKeeper.newClient(connectString(), sessionTimeout);
	}

	/** Ends the session of {@code client} on the server, as an expiry does. */
	public void expireSession(CuratorFramework client) throws Exception {
		EmbeddedZooKeeper.expireSession(client, connectString());
	}

	/** Stops the server, keeping its data for {@link #restart()}. */
	public void stop() throws IOException {
		stoppable().server().stop();
	}

	/** Starts the stopped server again on the same port and data. */
	public void restart() throws Exception {
		stoppable().server().restart();
	}

	/** A started server and the client that reads it. */
	record Server(TestingServer server, CuratorFramework store) implements AutoCloseable {

		@Override
		public void close() throws Exception {
			try {
				this.store.close();
			}
			finally {
				this.server.close();
			}
		}

	}

}
