package io.github.distributelock.zookeeper;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.WaitDeadlines;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.WatcherType;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * One wait for the release of a lock: a watch on each node whose deletion may free it
 * (the lock node, or the queue nodes before a waiter's own), and optionally on the
 * children of a queue, fired when a node is deleted or changed, when the queue changes,
 * or when the session ends (which drops the watches). A connection that drops and comes
 * back within the session keeps the watches, and ZooKeeper fires them then if a node was
 * deleted meanwhile, so those events do not end the wait.
 */
final class ZooKeeperReleaseWatcher implements Watcher {

	private static final Log logger = LogFactory.getLog(ZooKeeperReleaseWatcher.class);

	private final ZooKeeper zooKeeper;

	private final List<String> paths;

	private final @Nullable String queue;

	private final String key;

	private final CompletableFuture<Void> released;

	private final @Nullable Runnable onDeletion;

	/** The paths whose watch fired, which need no removal. */
	private final Set<String> fired = ConcurrentHashMap.newKeySet();

	ZooKeeperReleaseWatcher(ZooKeeper zooKeeper, String path, String key, CompletableFuture<Void> released) {
		this(zooKeeper, List.of(path), null, key, released, null);
	}

	/**
	 * A wait on several nodes.
	 * @param paths the nodes to watch, as the handle sees them
	 * @param queue a node whose children to watch as well, or {@code null}
	 * @param onDeletion run before {@code released} completes when a watched node is
	 * found deleted, or {@code null}
	 */
	ZooKeeperReleaseWatcher(ZooKeeper zooKeeper, List<String> paths, @Nullable String queue, String key,
			CompletableFuture<Void> released, @Nullable Runnable onDeletion) {
		this.zooKeeper = zooKeeper;
		this.paths = paths;
		this.queue = queue;
		this.key = key;
		this.released = released;
		this.onDeletion = onDeletion;
	}

	/**
	 * Sets the watches, completing at once if a node is already gone, and at the deadline
	 * if none fires sooner; a wait that ends removes the watches that did not fire, so
	 * watches do not pile up on the nodes.
	 */
	void watch(WaitDeadlines deadlines, Deadline deadline) {
		for (String path : this.paths) {
			// getData, not exists: on a missing node it leaves no watch behind.
			this.zooKeeper.getData(path, this, (code, name, context, data, stat) -> {
				KeeperException.Code outcome = KeeperException.Code.get(code);
				if (outcome == KeeperException.Code.NONODE) {
					this.fired.add(path);
					deleted();
				}
				else if (outcome != KeeperException.Code.OK) {
					this.released.completeExceptionally(KeeperException.create(outcome, path));
				}
			}, null);
		}
		String queuePath = this.queue;
		if (queuePath != null) {
			this.zooKeeper.getChildren(queuePath, this, (code, name, context, children) -> {
				KeeperException.Code outcome = KeeperException.Code.get(code);
				if (outcome == KeeperException.Code.NONODE) {
					this.fired.add(queuePath);
					this.released.complete(null);
				}
				else if (outcome != KeeperException.Code.OK) {
					this.released.completeExceptionally(KeeperException.create(outcome, queuePath));
				}
			}, null);
		}
		deadlines.expireAt(this.released, deadline);
		this.released.whenComplete((result, failure) -> removeWatches());
	}

	@Override
	public void process(WatchedEvent event) {
		if (event.getType() == Event.EventType.None && keepsWatches(event.getState())) {
			return;
		}
		if (event.getPath() != null) {
			this.fired.add(event.getPath());
		}
		if (event.getType() == Event.EventType.NodeDeleted && this.paths.contains(event.getPath())) {
			deleted();
		}
		else {
			this.released.complete(null);
		}
	}

	private void deleted() {
		if (this.onDeletion != null && !this.released.isDone()) {
			this.onDeletion.run();
		}
		this.released.complete(null);
	}

	private static boolean keepsWatches(Event.KeeperState state) {
		return state == Event.KeeperState.Disconnected || state == Event.KeeperState.SyncConnected
				|| state == Event.KeeperState.ConnectedReadOnly || state == Event.KeeperState.SaslAuthenticated;
	}

	private void removeWatches() {
		for (String path : this.paths) {
			if (!this.fired.contains(path)) {
				removeWatch(path, WatcherType.Data);
			}
		}
		if (this.queue != null && !this.fired.contains(this.queue)) {
			removeWatch(this.queue, WatcherType.Children);
		}
	}

	private void removeWatch(String path, WatcherType type) {
		this.zooKeeper.removeWatches(path, this, type, true, (code, name, context) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome != KeeperException.Code.OK && outcome != KeeperException.Code.NOWATCHER
					&& logger.isDebugEnabled()) {
				logger.debug("Could not remove the watch of an ended wait for lock '" + this.key + "': " + outcome);
			}
		}, null);
	}

}
