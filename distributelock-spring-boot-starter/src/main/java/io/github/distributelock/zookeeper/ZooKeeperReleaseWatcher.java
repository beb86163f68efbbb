package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One wait for the release of a lock: a watch on its node, woken when the node is deleted
 * or changed, or when the session ends (which drops the watch). A connection that drops
 * and comes back within the session keeps the watch, and ZooKeeper fires it then if the
 * node was deleted meanwhile, so those events do not wake the waiter.
 */
final class ZooKeeperReleaseWatcher implements Watcher {

	private static final Log logger = LogFactory.getLog(ZooKeeperReleaseWatcher.class);

	private final CuratorFramework client;

	private final String path;

	private final String key;

	private final CountDownLatch changed = new CountDownLatch(1);

	ZooKeeperReleaseWatcher(CuratorFramework client, String path, String key) {
		this.client = client;
		this.path = path;
		this.key = key;
	}

	/**
	 * Sets the watch and blocks until it fires or {@code maxWait} passes; returns at once
	 * if the node is already gone.
	 */
	void await(Duration maxWait) throws InterruptedException {
		try {
			// getData, not checkExists: on a missing node it leaves no watch behind.
			this.client.getData().undecompressed().usingWatcher(this).forPath(this.path);
		}
		catch (KeeperException.NoNodeException ex) {
			return;
		}
		catch (InterruptedException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw ZooKeeperLockBackend.failure(ex);
		}
		boolean fired = false;
		try {
			fired = this.changed.await(maxWait.toNanos(), TimeUnit.NANOSECONDS);
		}
		finally {
			if (!fired) {
				removeWatch();
			}
		}
	}

	@Override
	public void process(WatchedEvent event) {
		if (event.getType() == Event.EventType.None && keepsWatches(event.getState())) {
			return;
		}
		this.changed.countDown();
	}

	private static boolean keepsWatches(Event.KeeperState state) {
		return state == Event.KeeperState.Disconnected || state == Event.KeeperState.SyncConnected
				|| state == Event.KeeperState.ConnectedReadOnly || state == Event.KeeperState.SaslAuthenticated;
	}

	/** Drops the watch of a wait that timed out, so waits do not pile up on the node. */
	private void removeWatch() {
		try {
			this.client.watchers().remove(this).ofType(WatcherType.Data).locally().quietly().forPath(this.path);
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			logger.debug("Could not remove the watch of a timed out wait for lock '" + this.key + "'", ex);
		}
	}

}
