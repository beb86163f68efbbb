package io.github.distributelock.zookeeper;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.Deadline;
import io.github.distributelock.zookeeper.ZooKeeperKindClaims.QueuedNode;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * What a waiter watches, carried from its attempt to its wait in
 * {@link io.github.distributelock.core.AcquireResult#hint()}.
 *
 * @param paths the nodes whose deletion may let it in, as the handle sees them
 * @param queue a queue whose every change to watch as well, or {@code null}
 * @param admitted the node that the deletion of any of {@code paths} lets in, or
 * {@code null}
 */
record ZooKeeperWait(List<String> paths, @Nullable String queue, @Nullable QueuedNode admitted) {

	/** A wait for the deletion of one node. */
	static ZooKeeperWait forNode(String path) {
		return new ZooKeeperWait(List.of(path), null, null);
	}

	/**
	 * Completes when a watched node is deleted or changed, the queue changes, the session
	 * ends, or at {@code deadline}.
	 */
	CompletableFuture<Void> await(ZooKeeperSession session, String key, Deadline deadline) {
		CompletableFuture<Void> released = new CompletableFuture<>();
		ZooKeeper zooKeeper = session.handle(released);
		if (zooKeeper != null) {
			QueuedNode node = this.admitted;
			Runnable onDeletion = (node != null) ? () -> node.admitted = true : null;
			new ZooKeeperReleaseWatcher(zooKeeper, this.paths, this.queue, key, released, onDeletion)
				.watch(session.deadlines(), deadline);
		}
		return released;
	}

}
