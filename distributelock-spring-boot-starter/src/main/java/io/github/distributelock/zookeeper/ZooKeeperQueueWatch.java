package io.github.distributelock.zookeeper;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * Whether a node that created its queue is still alone in it, known at its release
 * without reading the queue then: a listing with a child watch, sent right behind the
 * transaction that created the queue (one session's requests are answered in order, so it
 * lists the queue as that transaction left it), and the watch's event when anyone joins.
 * A release that trusts it deletes node and queue in one transaction at once; one that
 * meets a member who joined a moment before fails that transaction and deletes its node
 * alone, as a release that read the queue first would have.
 */
final class ZooKeeperQueueWatch implements Watcher, AsyncCallback.ChildrenCallback {

	private final CompletableFuture<Void> listed = new CompletableFuture<>();

	private volatile boolean listedAlone;

	private volatile boolean changed;

	/** Lists {@code queue} (as the handle sees it) and watches its children. */
	void list(ZooKeeperSession session, String queue) {
		ZooKeeper zooKeeper = session.handle(new CompletableFuture<>());
		if (zooKeeper == null) {
			this.listed.complete(null);
			return;
		}
		zooKeeper.getChildren(queue, this, this, null);
	}

	/**
	 * Completes, once the listing is answered, with whether the node is alone in its
	 * queue by the listing and by every event seen since.
	 */
	CompletableFuture<Boolean> alone() {
		return this.listed.thenApply((answered) -> this.listedAlone && !this.changed);
	}

	@Override
	public void processResult(int code, String path, Object context, List<String> children) {
		this.listedAlone = KeeperException.Code.get(code) == KeeperException.Code.OK && children.size() == 1;
		this.listed.complete(null);
	}

	@Override
	public void process(WatchedEvent event) {
		this.changed = true;
	}

}
