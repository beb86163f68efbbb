package io.github.distributelock.zookeeper;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.core.Deadline;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooKeeper;

/**
 * One wait for the release of a lock: a watch on its node, fired when the node is deleted
 * or changed, or when the session ends (which drops the watch). A connection that drops
 * and comes back within the session keeps the watch, and ZooKeeper fires it then if the
 * node was deleted meanwhile, so those events do not end the wait.
 */
final class ZooKeeperReleaseWatcher implements Watcher {

	private static final Log logger = LogFactory.getLog(ZooKeeperReleaseWatcher.class);

	private final ZooKeeper zooKeeper;

	private final String path;

	private final String key;

	private final CompletableFuture<Void> released;

	private volatile boolean fired;

	ZooKeeperReleaseWatcher(ZooKeeper zooKeeper, String path, String key, CompletableFuture<Void> released) {
		this.zooKeeper = zooKeeper;
		this.path = path;
		this.key = key;
		this.released = released;
	}

	/**
	 * Sets the watch, completing at once if the node is already gone, and at the deadline
	 * if it fires no sooner; a wait that ends without the watch firing removes it, so
	 * watches do not pile up on the node.
	 */
	void watch(ScheduledExecutorService timeouts, Deadline deadline) {
		// getData, not exists: on a missing node it leaves no watch behind.
		this.zooKeeper.getData(this.path, this, (code, name, context, data, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.NONODE) {
				this.released.complete(null);
			}
			else if (outcome != KeeperException.Code.OK) {
				this.released.completeExceptionally(KeeperException.create(outcome, this.path));
			}
		}, null);
		try {
			ScheduledFuture<?> expiry = timeouts.schedule(() -> this.released.complete(null), deadline.remainingNanos(),
					TimeUnit.NANOSECONDS);
			this.released.whenComplete((result, failure) -> expiry.cancel(false));
		}
		catch (RejectedExecutionException ex) {
			// The backend is closing: the waiter's next attempt tells.
			this.released.complete(null);
		}
		this.released.whenComplete((result, failure) -> {
			if (!this.fired) {
				removeWatch();
			}
		});
	}

	@Override
	public void process(WatchedEvent event) {
		if (event.getType() == Event.EventType.None && keepsWatches(event.getState())) {
			return;
		}
		this.fired = true;
		this.released.complete(null);
	}

	private static boolean keepsWatches(Event.KeeperState state) {
		return state == Event.KeeperState.Disconnected || state == Event.KeeperState.SyncConnected
				|| state == Event.KeeperState.ConnectedReadOnly || state == Event.KeeperState.SaslAuthenticated;
	}

	private void removeWatch() {
		this.zooKeeper.removeWatches(this.path, this, WatcherType.Data, true, (code, name, context) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome != KeeperException.Code.OK && outcome != KeeperException.Code.NOWATCHER
					&& logger.isDebugEnabled()) {
				logger.debug("Could not remove the watch of an ended wait for lock '" + this.key + "': " + outcome);
			}
		}, null);
	}

}
