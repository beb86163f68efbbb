package io.github.distributelock.zookeeper;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

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

}
