package io.github.distributelock.zookeeper;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * The deletes of queue nodes, each read and written on one session: a node's name holds
 * its owner's id and a sequence number the queue never gives twice, so deleting it by
 * name is owner-checked.
 * <p>
 * Deleting the last node of a queue deletes the queue in the same transaction, so that
 * plain attempts (and nodes of the original starter) find the path free at once. Whether
 * the node is the last is read first ({@code exists}, answered by the connected server
 * without a write) unless a {@link ZooKeeperQueueWatch} already tells: a write that fails
 * still costs the ensemble a transaction, and with waiters behind it the release must
 * stay one delete, the whole hand-off.
 */
final class ZooKeeperKindReleases {

	private static final Log logger = LogFactory.getLog(ZooKeeperKindReleases.class);

	private final ZooKeeperSession session;

	private final ZooKeeperEmptyQueues emptyQueues;

	ZooKeeperKindReleases(ZooKeeperSession session, ZooKeeperEmptyQueues emptyQueues) {
		this.session = session;
		this.emptyQueues = emptyQueues;
	}

	/**
	 * Deletes the node {@code name} of {@code queue} (as the handle sees it).
	 * @param othersBehind whether other nodes are known to follow it, so that the queue
	 * stays: the delete is sent at once, without reading the queue first
	 * @param queueWatch what tells whether the node is alone in the queue it created, or
	 * {@code null}: while it is, node and queue are deleted at once, without reading the
	 * queue first
	 * @param lost told of each delete's outcome
	 * @param nodeSession the session of the node
	 * @return what was deleted
	 */
	CompletableFuture<Deleted> delete(String queue, String name, boolean othersBehind,
			@Nullable ZooKeeperQueueWatch queueWatch, ZooKeeperLostAnswer lost, long nodeSession) {
		return delete(queue, name, othersBehind, queueWatch, new LostDeletes(lost, nodeSession));
	}

	private CompletableFuture<Deleted> delete(String queue, String name, boolean othersBehind,
			@Nullable ZooKeeperQueueWatch queueWatch, @Nullable LostDeletes lost) {
		CompletableFuture<Deleted> deleted = new CompletableFuture<>();
		ZooKeeper zooKeeper = this.session.handle(deleted);
		if (zooKeeper != null) {
			delete(zooKeeper, queue, name, othersBehind, queueWatch, lost, deleted);
		}
		return deleted;
	}

	private void delete(ZooKeeper zooKeeper, String queue, String name, boolean othersBehind,
			@Nullable ZooKeeperQueueWatch queueWatch, @Nullable LostDeletes lost, CompletableFuture<Deleted> deleted) {
		String node = queue + "/" + name;
		if (othersBehind) {
			deleteNode(zooKeeper, queue, node, lost, deleted);
		}
		else if (queueWatch != null) {
			queueWatch.alone().thenAccept((alone) -> {
				if (alone) {
					deleteWithQueue(zooKeeper, queue, node, lost, deleted);
				}
				else {
					deleteAfterReading(zooKeeper, queue, node, lost, deleted);
				}
			}).exceptionally((failure) -> {
				// A request refused before it was sent: the release must still end.
				deleted.completeExceptionally(failure);
				return null;
			});
		}
		else {
			deleteAfterReading(zooKeeper, queue, node, lost, deleted);
		}
	}

	/**
	 * Deletes the node {@code name} of {@code queue} (as the handle sees it).
	 * @param othersBehind whether other nodes are known to follow it
	 * @param queueWatch what tells whether the node is alone in the queue it created, or
	 * {@code null}
	 * @return what was deleted
	 */
	CompletableFuture<Deleted> delete(String queue, String name, boolean othersBehind,
			@Nullable ZooKeeperQueueWatch queueWatch) {
		return delete(queue, name, othersBehind, queueWatch, null);
	}

	/**
	 * Deletes the node {@code name} of {@code queue} (as the handle sees it), reading the
	 * queue first to learn whether the node is its last.
	 * @return what was deleted
	 */
	CompletableFuture<Deleted> delete(String queue, String name) {
		return delete(queue, name, false, null, null);
	}

	private void deleteAfterReading(ZooKeeper zooKeeper, String queue, String node, @Nullable LostDeletes lost,
			CompletableFuture<Deleted> deleted) {
		zooKeeper.exists(queue, false, (code, path, context, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.NONODE) {
				deleted.complete(Deleted.NOTHING);
			}
			else if (outcome != KeeperException.Code.OK) {
				deleted.completeExceptionally(KeeperException.create(outcome, queue));
			}
			else if (stat.getNumChildren() <= 1) {
				deleteWithQueue(zooKeeper, queue, node, lost, deleted);
			}
			else {
				deleteNode(zooKeeper, queue, node, lost, deleted);
			}
		}, null);
	}

	/**
	 * Deletes the node and its queue in one transaction, or the node alone when another
	 * node joined the queue. The queue's version is not checked, as the transaction
	 * deletes our node first, which only this queue holds.
	 */
	private void deleteWithQueue(ZooKeeper zooKeeper, String queue, String node, @Nullable LostDeletes lost,
			CompletableFuture<Deleted> deleted) {
		zooKeeper.multi(List.of(Op.delete(node, -1), Op.delete(queue, -1)),
				(multiCode, multiPath, multiContext, results) -> {
					KeeperException.Code multiOutcome = KeeperException.Code.get(multiCode);
					if (multiOutcome == KeeperException.Code.NOTEMPTY) {
						deleteNode(zooKeeper, queue, node, lost, deleted);
					}
					else {
						answered(zooKeeper, multiOutcome, lost);
						completeDeleted(multiOutcome, node, Deleted.QUEUE, deleted);
					}
				}, null);
	}

	private void deleteNode(ZooKeeper zooKeeper, String queue, String node, @Nullable LostDeletes lost,
			CompletableFuture<Deleted> deleted) {
		zooKeeper.delete(node, -1, (code, path, context) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			answered(zooKeeper, outcome, lost);
			completeDeleted(outcome, node, Deleted.NODE, deleted);
			if (outcome == KeeperException.Code.OK) {
				// The others may have left at the same time, each seeing the
				// rest: the one that finds the queue empty afterwards removes it.
				this.emptyQueues.deleteIfEmpty(zooKeeper, queue, null);
			}
		}, null);
	}

	private static void answered(ZooKeeper zooKeeper, KeeperException.Code outcome, @Nullable LostDeletes lost) {
		if (lost != null) {
			lost.answer().answered(zooKeeper, outcome, lost.nodeSession());
		}
	}

	private static void completeDeleted(KeeperException.Code outcome, String node, Deleted done,
			CompletableFuture<Deleted> deleted) {
		if (outcome == KeeperException.Code.OK) {
			deleted.complete(done);
		}
		else if (outcome == KeeperException.Code.NONODE) {
			deleted.complete(Deleted.NOTHING);
		}
		else {
			deleted.completeExceptionally(KeeperException.create(outcome, node));
		}
	}

	/**
	 * Deletes every node of {@code queue} whose name carries {@code ownerId}, on the
	 * session that lists them.
	 * @param lost told of each delete's outcome
	 * @return whether there was one, or a delete of a run before this one whose answer
	 * was lost ran
	 */
	CompletableFuture<Boolean> deleteOwned(String queue, String ownerId, ZooKeeperLostAnswer lost) {
		CompletableFuture<Boolean> deleted = new CompletableFuture<>();
		ZooKeeper zooKeeper = this.session.handle(deleted);
		if (zooKeeper == null) {
			return deleted;
		}
		long sessionId = zooKeeper.getSessionId();
		boolean ownDeleteLost = lost.ran(zooKeeper);
		zooKeeper.getChildren(queue, false, (code, path, context, children) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.NONODE) {
				deleted.complete(ownDeleteLost);
			}
			else if (outcome != KeeperException.Code.OK) {
				deleted.completeExceptionally(KeeperException.create(outcome, queue));
			}
			else {
				CompletableFuture<Boolean> all = CompletableFuture.completedFuture(ownDeleteLost);
				for (String child : children) {
					ZooKeeperKindNode node = ZooKeeperKindNode.parse(child);
					if (node.ownedBy(ownerId)) {
						// A node asked for on this session lives on it, not on one
						// before; the session of another is not known.
						LostDeletes lostDeletes = new LostDeletes(lost, node.askedOn(sessionId) ? sessionId : 0);
						all = all.thenCompose((earlier) -> {
							CompletableFuture<Deleted> one = new CompletableFuture<>();
							delete(zooKeeper, queue, child, false, null, lostDeletes, one);
							return one.thenApply((done) -> done != Deleted.NOTHING || earlier);
						});
					}
				}
				all.whenComplete((one, failure) -> {
					if (failure != null) {
						deleted.completeExceptionally(failure);
					}
					else {
						deleted.complete(one);
					}
				});
			}
		}, null);
		return deleted;
	}

	/**
	 * Deletes a copy of a node made by a request that was sent again after its answer was
	 * lost; the copy would otherwise hold up the queue until the session ends. The claim
	 * may hold at the listing that found the copy, and no later listing would send the
	 * delete again.
	 */
	void deleteDuplicate(String queue, String name, String key) {
		deleteLeftBehind(queue, name, "Could not delete the second node '" + name + "' of one claim of lock '" + key
				+ "'; it stays in the queue until its session ends");
	}

	/**
	 * Deletes a node that nothing else would delete, sent again once the client is
	 * connected when the answer is lost with the connection, as a release is.
	 * @param failureMessage what is logged, with the failure, if the node could not be
	 * deleted
	 * @return completes once the node is deleted or the failure logged; never fails
	 */
	CompletableFuture<Void> deleteLeftBehind(String queue, String name, String failureMessage) {
		return logged(this.session.retriedOnReconnection(() -> delete(queue, name)), failureMessage);
	}

	/**
	 * As {@link #deleteLeftBehind(String, String, String)}, running
	 * {@code awaitingReconnection} when the delete, its answer lost, waits for the client
	 * to be connected again before it is sent again.
	 */
	CompletableFuture<Void> deleteLeftBehind(String queue, String name, String failureMessage,
			Runnable awaitingReconnection) {
		return logged(this.session.retriedOnReconnection(() -> delete(queue, name), awaitingReconnection),
				failureMessage);
	}

	private static CompletableFuture<Void> logged(CompletableFuture<Deleted> delete, String failureMessage) {
		return delete.handle((deleted, failure) -> {
			if (failure != null) {
				logger.warn(failureMessage, failure);
			}
			return null;
		});
	}

	/**
	 * The outcomes of deletes of a node of session {@code nodeSession} go to
	 * {@code answer}.
	 */
	private record LostDeletes(ZooKeeperLostAnswer answer, long nodeSession) {
	}

	/** What a delete of a node deleted. */
	enum Deleted {

		/** Nothing: the node was gone. */
		NOTHING,

		/** The node; others stayed in the queue. */
		NODE,

		/** The node, the queue's last, and the queue with it. */
		QUEUE

	}

}
