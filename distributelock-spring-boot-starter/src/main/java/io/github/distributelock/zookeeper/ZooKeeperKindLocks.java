package io.github.distributelock.zookeeper;

import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.zookeeper.ZooKeeperKindClaims.QueuedNode;
import io.github.distributelock.zookeeper.ZooKeeperKindReleases.Deleted;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * The fair, read/write and permit locks on ZooKeeper, after Curator's
 * {@code LockInternals}: each claim is an {@code EPHEMERAL_SEQUENTIAL} node in a queue
 * that takes the place of the plain lock node, {@code <root>/<key>}, as a
 * {@code CONTAINER} node. A plain node and a queue cannot both exist at one path, and an
 * ephemeral node cannot have children, so the queue excludes a plain holder (of this
 * library or of the original starter) and a plain holder excludes the queue, with no
 * extra node and no extra write.
 * <ul>
 * <li>A claim's first attempt creates its node, in one transaction with the queue when
 * there is none (then it holds at once); later attempts of the claim find the node again
 * and list the queue ({@link ZooKeeperKindAttempts}; {@link ZooKeeperKindQueue} reads the
 * listing).</li>
 * <li>A waiter watches only the nodes before it whose deletion may let it in; when that
 * deletion alone admits it, the next attempt holds without listing the queue, so a
 * hand-off costs the holder's delete (one write) and one watch event.</li>
 * <li>Release deletes the claim's node, with the queue in the same transaction when it is
 * the last node; a release or a crash that leaves an empty queue behind is cleaned by the
 * next plain attempt or by the server's container reaper.</li>
 * </ul>
 * The fencing token is the claim's node's {@code czxid}; the session is the lease, of
 * holders and waiters alike.
 */
final class ZooKeeperKindLocks {

	/**
	 * The data version of every queue node: the transaction that creates it writes its
	 * data once more, as the only way to learn the transaction's zxid (the fencing token
	 * of its first node) without a read. A plain lock node never has this version (it is
	 * created at 0, and its first hand-over writes twice), so a delete of this version
	 * never removes one.
	 */
	static final int QUEUE_VERSION = 1;

	private final ZooKeeperSession session;

	private final ZooKeeperKindReleases releases;

	private final ZooKeeperKindClaims claims = new ZooKeeperKindClaims();

	private final ZooKeeperKindAttempts attempts;

	private final ZooKeeperQueueLeaves leaves;

	ZooKeeperKindLocks(ZooKeeperSession session, ZooKeeperKindReleases releases, String backend) {
		this.session = session;
		this.releases = releases;
		this.leaves = new ZooKeeperQueueLeaves(session);
		this.attempts = new ZooKeeperKindAttempts(session, releases, this.claims, backend);
	}

	CompletableFuture<AcquireResult> tryAcquire(Claim claim) {
		return this.attempts.tryAcquire(claim);
	}

	/**
	 * Leaves the queue: deletes the claim's node, held or waiting (a waiter's delete
	 * answers at once when it must wait for a reconnection:
	 * {@link ZooKeeperQueueLeaves}); a claim whose node this backend does not know (an
	 * answer lost with the connection, or a release from another instance with the same
	 * owner) has its nodes found by their name.
	 */
	CompletableFuture<Boolean> release(Claim claim) {
		String queue = this.session.fixForNamespace(this.session.paths().lockPath(claim.key()));
		QueuedNode node = this.claims.forget(claim);
		if (node != null) {
			// A later node of this backend keeps the queue: no need to read it first.
			boolean othersBehind = this.claims.hasNodeAfter(claim, node);
			ZooKeeperLostAnswer lost = new ZooKeeperLostAnswer();
			Supplier<CompletableFuture<Deleted>> delete = () -> this.releases.delete(queue, node.name, othersBehind,
					node.queueWatch, lost, node.sessionId);
			CompletableFuture<Deleted> deleting = (node.held) ? this.session.retriedOnReconnection(delete)
					: this.leaves.leave(claim.key(), queue + "/" + node.name, delete);
			return deleting.thenApply((deleted) -> {
				if (deleted != Deleted.NOTHING) {
					this.claims.queueSeen(claim.key(), deleted == Deleted.NODE);
				}
				return deleted != Deleted.NOTHING || lost.ran(this.session.sessionId());
			});
		}
		String ownerId = ZooKeeperKindNode.ownerId(claim.owner());
		ZooKeeperLostAnswer lost = new ZooKeeperLostAnswer();
		return this.session.retriedOnReconnection(() -> this.releases.deleteOwned(queue, ownerId, lost));
	}

	/**
	 * What a fair {@code next} gets once the node of {@code holder} is deleted, if its
	 * node is right behind the holder's as its last listing saw (no node can come between
	 * since, as sequence numbers only grow), both on this session: to other instances the
	 * key stays held until both nodes are gone, as every node of another instance is
	 * behind them, so {@code next} holds at once, without waiting for the holder's
	 * delete, with its node's {@code czxid} as its token. {@code null} otherwise, and
	 * while the client is not connected.
	 */
	@Nullable AcquireResult admittedByRelease(Claim holder, Claim next) {
		QueuedNode held = this.claims.node(holder);
		QueuedNode waiting = this.claims.node(next);
		long sessionId = this.session.sessionId();
		// A disconnected client keeps its session id until it hears that the session
		// ended, which the server may have decided already.
		if (next.kind().type() != LockKind.Type.FAIR || held == null || waiting == null || held.sessionId != sessionId
				|| waiting.sessionId != sessionId || !held.name.equals(waiting.after) || !this.session.isConnected()) {
			return null;
		}
		waiting.held = true;
		return AcquireResult.acquired(waiting.token);
	}

	/** Whether the claim's node is still in its queue, on this session. */
	CompletableFuture<Boolean> owned(Claim claim) {
		QueuedNode node = this.claims.node(claim);
		if (node == null) {
			return CompletableFuture.completedFuture(false);
		}
		String queue = this.session.fixForNamespace(this.session.paths().lockPath(claim.key()));
		return this.session.retriedOnReconnection(() -> ownedOnOneSession(queue + "/" + node.name));
	}

	/** Whether {@code node} exists and belongs to the current session. */
	private CompletableFuture<Boolean> ownedOnOneSession(String node) {
		CompletableFuture<Boolean> exists = new CompletableFuture<>();
		ZooKeeper zooKeeper = this.session.handle(exists);
		if (zooKeeper == null) {
			return exists;
		}
		zooKeeper.exists(node, false, (code, path, context, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.OK || outcome == KeeperException.Code.NONODE) {
				exists.complete(stat != null && stat.getEphemeralOwner() == zooKeeper.getSessionId());
			}
			else {
				exists.completeExceptionally(KeeperException.create(outcome, node));
			}
		}, null);
		return exists;
	}

	/** Waits on the nodes the claim's last attempt named. */
	CompletableFuture<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		if (lastAttempt.hint() instanceof ZooKeeperWait wait) {
			return wait.await(this.session, claim.key(), deadline);
		}
		if (lastAttempt.hint() instanceof ZooKeeperPendingDelete pendingDelete) {
			return pendingDelete.await(this.session, deadline);
		}
		return CompletableFuture.completedFuture(null);
	}

}
