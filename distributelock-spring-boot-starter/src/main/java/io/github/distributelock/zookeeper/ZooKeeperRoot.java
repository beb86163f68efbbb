package io.github.distributelock.zookeeper;

import java.util.concurrent.CompletableFuture;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * The creation of the lock root, a container node that the server removes once it is
 * empty, which every first node under it may have to create again.
 */
final class ZooKeeperRoot {

	private final CuratorFramework client;

	private final String root;

	ZooKeeperRoot(CuratorFramework client, String root) {
		this.client = client;
		this.root = root;
	}

	/**
	 * Creates the root as a container node, and its missing parents, unless it exists.
	 * The parents are created here, one level at a time, not by Curator's
	 * {@code creatingParentContainersIfNeeded()}: under a chroot that does not exist,
	 * every creation fails with {@code NONODE}, and Curator's background creation of the
	 * parents then retries without end, which left a lock call waiting for good, past its
	 * wait time.
	 */
	CompletableFuture<Void> create() {
		return createContainer(this.root);
	}

	private CompletableFuture<Void> createContainer(String path) {
		CompletableFuture<Void> created = new CompletableFuture<>();
		try {
			this.client.create().withMode(CreateMode.CONTAINER).inBackground((curator, event) -> {
				KeeperException.Code outcome = KeeperException.Code.get(event.getResultCode());
				if (outcome == KeeperException.Code.OK || outcome == KeeperException.Code.NODEEXISTS) {
					created.complete(null);
				}
				else if (outcome == KeeperException.Code.NONODE) {
					createParentThen(path, created);
				}
				else {
					created.completeExceptionally(KeeperException.create(outcome, event.getPath()));
				}
			}).forPath(path);
		}
		catch (Exception ex) {
			created.completeExceptionally(ex);
		}
		return created;
	}

	private void createParentThen(String path, CompletableFuture<Void> created) {
		String parent = ZKPaths.getPathAndNode(path).getPath();
		if (ZKPaths.PATH_SEPARATOR.equals(parent)) {
			// "/" always exists, unless it is a chroot of the connect string that does
			// not.
			created.completeExceptionally(new IllegalStateException("Could not create the lock root " + path
					+ " in ZooKeeper: the chroot of the connect string does not exist, and ZooKeeper does not "
					+ "create it; create it, or remove it from the connect string"));
			return;
		}
		createContainer(parent).thenCompose((parentCreated) -> createContainer(path)).whenComplete((done, failure) -> {
			if (failure != null) {
				created.completeExceptionally(ZooKeeperSession.unwrap(failure));
			}
			else {
				created.complete(null);
			}
		});
	}

}
