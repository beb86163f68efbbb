package io.github.distributelock.fault;

import java.time.Duration;

import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.EmbeddedZooKeeperExtension;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A ZooKeeper server that is hung but connected. Its client notices only when it has
 * heard nothing for its read timeout, so a caller is bounded by its wait plus the
 * client's connection timeout, the longest it is configured to wait for the server to be
 * reachable, far below the read timeout here; a holder hears of its loss when Curator
 * declares the session lost, and the server expires the session and its node.
 */
class ZooKeeperHungServerTests extends AbstractHungServerTests {

	/**
	 * The session timeout of a holder behind the proxy: it hears of its loss when its
	 * client has heard nothing for {@link #READ_TIMEOUT}, and Curator a session timeout
	 * after that.
	 */
	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);

	/**
	 * How long ZooKeeper's client waits for a byte from the server before it calls the
	 * connection lost: two thirds of the session timeout. The client pings the server
	 * when it has sent nothing for half of it, so a silent server is heard of this long
	 * after the last answer.
	 */
	private static final Duration READ_TIMEOUT = SESSION_TIMEOUT.multipliedBy(2).dividedBy(3);

	/**
	 * The session timeout of a caller behind the proxy: its client calls the connection
	 * lost after 6 s of silence, far later than its deadline plus its connection timeout.
	 */
	private static final Duration CALLER_SESSION_TIMEOUT = Duration.ofSeconds(9);

	/** The longest a quick client waits for the server to be reachable. */
	private static final Duration CONNECTION_TIMEOUT = EmbeddedZooKeeper.QUICK_CONNECTION_TIMEOUT;

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@Override
	protected String backendName() {
		return "zookeeper";
	}

	@Override
	protected int storePort() {
		return zooKeeper.port();
	}

	@Override
	protected DefaultDistributeLock callerThrough(TcpProxy proxy) throws Exception {
		return lockThrough(proxy, CALLER_SESSION_TIMEOUT);
	}

	@Override
	protected DefaultDistributeLock holderThrough(TcpProxy proxy) throws Exception {
		return lockThrough(proxy, SESSION_TIMEOUT);
	}

	@Override
	protected DefaultDistributeLock direct() throws Exception {
		return lock(this.closeables.add(zooKeeper.newClient(SESSION_TIMEOUT)));
	}

	@Override
	protected boolean isLocked(String key) throws Exception {
		return zooKeeper.store().checkExists().forPath(ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key) != null;
	}

	/** A round trip to a hung server never ends: the client's connection timeout. */
	@Override
	protected Duration callerAllowance() {
		return CONNECTION_TIMEOUT;
	}

	/** A read timeout after the last answer, then a session timeout. */
	@Override
	protected Duration lossBound() {
		return READ_TIMEOUT.plus(SESSION_TIMEOUT);
	}

	/** A release on a disconnected client waits for it up to the connection timeout. */
	@Override
	protected Duration releaseBound() {
		return CONNECTION_TIMEOUT;
	}

	/** The server expires the session, and its node, a session timeout after. */
	@Override
	protected Duration storeExpiry() {
		return SESSION_TIMEOUT.multipliedBy(2);
	}

	@Override
	protected Duration recovery() {
		return CALLER_SESSION_TIMEOUT.multipliedBy(2);
	}

	private DefaultDistributeLock lockThrough(TcpProxy proxy, Duration sessionTimeout) throws Exception {
		return lock(this.closeables.add(EmbeddedZooKeeper.newQuickClient("127.0.0.1:" + proxy.port(), sessionTimeout)));
	}

	private DefaultDistributeLock lock(CuratorFramework client) {
		return this.closeables.add(new DefaultDistributeLock(this.closeables.add(new ZooKeeperLockBackend(client)),
				Duration.ofSeconds(30), false, LockEventListener.NONE, null));
	}

}
