package io.github.distributelock.zookeeper;

import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * Deletes a queue of the fair, read/write and permit locks that its last member left
 * empty, so that plain attempts (and nodes of the original starter) find the path free
 * before the server's container reaper runs: after a release that deleted its node alone,
 * and when a plain attempt meets an empty queue.
 */
final class ZooKeeperEmptyQueues {

	private static final Log logger = LogFactory.getLog(ZooKeeperEmptyQueues.class);

	private final ZooKeeperSession session;

	ZooKeeperEmptyQueues(ZooKeeperSession session) {
		this.session = session;
	}

	/**
	 * Deletes {@code queue} if it is an empty queue.
	 * @return whether the path is free now
	 */
	CompletableFuture<Boolean> deleteEmptyQueue(String queue) {
		CompletableFuture<Boolean> deleted = new CompletableFuture<>();
		ZooKeeper zooKeeper = this.session.handle(deleted);
		if (zooKeeper != null) {
			deleteIfEmpty(zooKeeper, queue, deleted);
		}
		return deleted;
	}

	void deleteIfEmpty(ZooKeeper zooKeeper, String queue, @Nullable CompletableFuture<Boolean> deleted) {
		zooKeeper.exists(queue, false, (code, path, context, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome != KeeperException.Code.OK && outcome != KeeperException.Code.NONODE
					&& logger.isDebugEnabled()) {
				logger.debug("Could not read the queue " + queue + " to delete it if empty: " + outcome);
			}
			if (outcome != KeeperException.Code.OK || stat.getNumChildren() > 0 || stat.getEphemeralOwner() != 0) {
				complete(deleted, outcome == KeeperException.Code.NONODE);
				return;
			}
			// The version tells a queue from a plain lock node created at the path since
			// the read, which never has the queue's version.
			zooKeeper.delete(queue, ZooKeeperKindLocks.QUEUE_VERSION, (deleteCode, deletePath, deleteContext) -> {
				KeeperException.Code deleteOutcome = KeeperException.Code.get(deleteCode);
				if (deleteOutcome != KeeperException.Code.OK && deleteOutcome != KeeperException.Code.NONODE
						&& deleteOutcome != KeeperException.Code.NOTEMPTY && logger.isDebugEnabled()) {
					logger.debug("Could not delete the empty queue " + queue + ": " + deleteOutcome);
				}
				complete(deleted,
						deleteOutcome == KeeperException.Code.OK || deleteOutcome == KeeperException.Code.NONODE);
			}, null);
		}, null);
	}

	private static void complete(@Nullable CompletableFuture<Boolean> deleted, boolean free) {
		if (deleted != null) {
			deleted.complete(free);
		}
	}

}
