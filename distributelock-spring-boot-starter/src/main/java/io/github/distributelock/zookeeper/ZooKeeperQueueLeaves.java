package io.github.distributelock.zookeeper;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.distributelock.zookeeper.ZooKeeperKindReleases.Deleted;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.zookeeper.KeeperException;

/**
 * The deletes of waiters' queue nodes, sent when a claim leaves the queue without having
 * held: at its deadline, cancelled, or giving back a failed attempt. The engine answers
 * such a caller once the leave has answered, so a leave must not wait for a dropped
 * connection to come back (up to the client's connection timeout, past the caller's
 * deadline): it answers with the connection loss as soon as its delete waits for a
 * reconnection, and the engine sends the release again in the background (the node
 * forgotten, by its owner's name) until the store answers. The first delete goes on alone
 * meanwhile, sent again once the client is connected; if the client never is, the node
 * goes with its session.
 */
final class ZooKeeperQueueLeaves {

	private static final Log logger = LogFactory.getLog(ZooKeeperQueueLeaves.class);

	private final ZooKeeperSession session;

	ZooKeeperQueueLeaves(ZooKeeperSession session) {
		this.session = session;
	}

	/**
	 * Runs {@code delete} of the waiter's {@code node} (as the handle sees it) of lock
	 * {@code key}, sent again after a dropped connection once the client is connected.
	 * @return what was deleted, or a connection loss as soon as the delete waits for the
	 * client to be connected again
	 */
	CompletableFuture<Deleted> leave(String key, String node, Supplier<CompletableFuture<Deleted>> delete) {
		CompletableFuture<Deleted> answer = new CompletableFuture<>();
		this.session
			.retriedOnReconnection(delete,
					() -> answer
						.completeExceptionally(KeeperException.create(KeeperException.Code.CONNECTIONLOSS, node)))
			.whenComplete((deleted, failure) -> {
				if (failure == null) {
					answer.complete(deleted);
				}
				else if (!answer.completeExceptionally(failure)) {
					logger.warn("Could not delete the node '" + node + "' of lock '" + key
							+ "', whose claim left the queue, once the client was connected again; its release is "
							+ "retried in the background, and the node goes with its session at the latest", failure);
				}
			});
		return answer;
	}

}
