package io.github.distributelock.zookeeper;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

import static org.awaitility.Awaitility.await;

/**
 * A ZooKeeper handle that closes nothing on the server while it is the handle of
 * {@code givenUpSession}: Curator closes the handle it replaces, which may still end its
 * session there, while a client that gave its session up says nothing to the server. The
 * server keeps that session, and its nodes, through the test. Tests subclass it to drop
 * or hold the answers of chosen requests.
 */
class GivenUpSessionKeeper extends ZooKeeper {

	private final AtomicLong givenUpSession;

	GivenUpSessionKeeper(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
			AtomicLong givenUpSession) throws IOException {
		super(connectString, sessionTimeout, watcher, canBeReadOnly);
		this.givenUpSession = givenUpSession;
	}

	@Override
	public void close() throws InterruptedException {
		if (getSessionId() != this.givenUpSession.get()) {
			super.close();
		}
	}

	@Override
	public boolean close(int waitForShutdownTimeoutMs) throws InterruptedException {
		return getSessionId() == this.givenUpSession.get() || super.close(waitForShutdownTimeoutMs);
	}

	/**
	 * Does what Curator does after a session timeout spent disconnected: the client's
	 * handle is told its session expired, and Curator opens a new one; the server is told
	 * nothing. Records the given-up session first, so that a keeper of the client's
	 * leaves it on the server, and returns once the client is connected on a new session.
	 */
	static void giveUpSession(CuratorFramework client, AtomicLong givenUpSession) throws Exception {
		ZooKeeper givenUp = client.getZookeeperClient().getZooKeeper();
		givenUpSession.set(givenUp.getSessionId());
		givenUp.getTestable().injectSessionExpiration();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> client.getZookeeperClient().isConnected()
					&& client.getZookeeperClient().getZooKeeper().getSessionId() != givenUpSession.get());
	}

}
