package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.zookeeper.ZooKeeperKindClaims.QueuedNode;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Conflict;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Hold;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Listing;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Wait;
import io.github.distributelock.zookeeper.ZooKeeperKindReleases.Deleted;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.TransactionOp;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
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
 * and list the queue ({@link ZooKeeperKindQueue} reads the listing).</li>
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
	 * Attempts to create a node whose queue the server or its last member just removed.
	 */
	private static final int CREATE_ATTEMPTS = 3;

	/** The data of a queue node, which says what it is to whoever reads the tree. */
	private static final byte[] QUEUE_DATA = "distributelock queue".getBytes(StandardCharsets.UTF_8);

	/**
	 * The data version of every queue node: the transaction that creates it writes its
	 * data once more, as the only way to learn the transaction's zxid (the fencing token
	 * of its first node) without a read. A plain lock node never has this version (it is
	 * created at 0, and its first hand-over writes twice), so a delete of this version
	 * never removes one.
	 */
	static final int QUEUE_VERSION = 1;

	private static final Log logger = LogFactory.getLog(ZooKeeperKindLocks.class);

	private final ZooKeeperSession session;

	private final String backend;

	private final ZooKeeperKindReleases releases;

	private final ZooKeeperKindClaims claims = new ZooKeeperKindClaims();

	ZooKeeperKindLocks(ZooKeeperSession session, ZooKeeperKindReleases releases, String backend) {
		this.session = session;
		this.releases = releases;
		this.backend = backend;
	}

	CompletableFuture<AcquireResult> tryAcquire(Claim claim) {
		String path = this.session.paths().lockPath(claim.key());
		CompletableFuture<AcquireResult> result = new CompletableFuture<>();
		QueuedNode node = this.claims.node(claim);
		if (node == null) {
			create(claim, path, 1, result);
		}
		else if (node.admitted && node.sessionId == this.session.sessionId()) {
			// A watch saw the deletion that let this node in, and the node lives as
			// long as this session: no need to list the queue.
			result.complete(AcquireResult.acquired(node.token));
		}
		else {
			list(claim, path, node, 1, result);
		}
		return result;
	}

	private void create(Claim claim, String path, int attempt, CompletableFuture<AcquireResult> result) {
		String prefix = ZooKeeperKindNode.prefix(claim.kind(), claim.owner(), this.session.sessionId());
		if (this.claims.queueLikely(claim.key())) {
			// Another claim of this backend is queued, or was lately: creating the queue
			// would fail, and a failed write costs the ensemble a transaction too.
			createNode(claim, path, prefix, attempt, result);
		}
		else {
			createQueue(claim, path, prefix, attempt, result);
		}
	}

	/** Creates the queue with the claim's node in it, which then holds the lock. */
	private void createQueue(Claim claim, String path, String prefix, int attempt,
			CompletableFuture<AcquireResult> result) {
		if (tooManyAttempts(attempt, result)) {
			return;
		}
		CuratorFramework client = this.session.client();
		TransactionOp op = client.transactionOp();
		ZooKeeperQueueWatch queueWatch = new ZooKeeperQueueWatch();
		long sentOn = this.session.sessionId();
		try {
			client.transaction()
				.inBackground((curator, event) -> queueCreated(claim, path, prefix, attempt, event, sentOn, queueWatch,
						result))
				.forOperations(op.create().uncompressed().withMode(CreateMode.CONTAINER).forPath(path, QUEUE_DATA),
						op.create()
							.uncompressed()
							.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
							.forPath(path + "/" + prefix, owner(claim)),
						op.setData().uncompressed().forPath(path, QUEUE_DATA));
			queueWatch.list(this.session, this.session.fixForNamespace(path));
		}
		catch (Exception ex) {
			result.completeExceptionally(ex);
		}
	}

	/**
	 * Reads the answer of the transaction that creates the queue.
	 * @param sentOn the session of the client when the transaction was sent: the answer
	 * does not say which session its node lives on
	 */
	private void queueCreated(Claim claim, String path, String prefix, int attempt, CuratorEvent event, long sentOn,
			ZooKeeperQueueWatch queueWatch, CompletableFuture<AcquireResult> result) {
		KeeperException.Code outcome = KeeperException.Code.get(event.getResultCode());
		if (outcome == KeeperException.Code.OK) {
			List<CuratorTransactionResult> results = event.getOpResults();
			String name = ZKPaths.getNodeFromPath(results.get(1).getResultPath());
			long token = results.get(2).getResultStat().getMzxid();
			QueuedNode node = new QueuedNode(name, token, sentOn, queueWatch);
			this.claims.remember(claim, node);
			if (sentOn == this.session.sessionId()) {
				result.complete(AcquireResult.acquired(token));
			}
			else {
				// The client gave the session up before the answer came: the node may
				// live on that session, which the server ends later, freeing the key
				// under the claim. The listing deletes it and queues the claim again.
				list(claim, path, node, attempt, result);
			}
		}
		else if (outcome == KeeperException.Code.NODEEXISTS) {
			// A queue, or a plain holder.
			this.claims.queueSeen(claim.key(), true);
			createNode(claim, path, prefix, attempt, result);
		}
		else if (outcome == KeeperException.Code.NONODE) {
			// No root yet, or the server removed it as an empty container just now.
			this.session.createRoot().whenComplete((done, failure) -> {
				if (failure != null) {
					result.completeExceptionally(failure);
				}
				else {
					create(claim, path, attempt + 1, result);
				}
			});
		}
		else {
			result.completeExceptionally(KeeperException.create(outcome, path));
		}
	}

	/** Adds the claim's node to the queue, then lists the queue. */
	private void createNode(Claim claim, String path, String prefix, int attempt,
			CompletableFuture<AcquireResult> result) {
		if (tooManyAttempts(attempt, result)) {
			return;
		}
		try {
			this.session.client()
				.create()
				.uncompressed()
				.storingStatIn(new Stat())
				.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
				.inBackground((curator, event) -> nodeCreated(claim, path, attempt, event, result))
				.forPath(path + "/" + prefix, owner(claim));
		}
		catch (Exception ex) {
			result.completeExceptionally(ex);
		}
	}

	private void nodeCreated(Claim claim, String path, int attempt, CuratorEvent event,
			CompletableFuture<AcquireResult> result) {
		KeeperException.Code outcome = KeeperException.Code.get(event.getResultCode());
		if (outcome == KeeperException.Code.OK) {
			Stat stat = event.getStat();
			QueuedNode node = new QueuedNode(ZKPaths.getNodeFromPath(event.getName()), stat.getCzxid(),
					stat.getEphemeralOwner(), null);
			this.claims.remember(claim, node);
			list(claim, path, node, attempt, result);
		}
		else if (outcome == KeeperException.Code.NONODE) {
			// The last member removed the queue just now.
			this.claims.queueSeen(claim.key(), false);
			createQueue(claim, path, ZooKeeperKindNode.prefix(claim.kind(), claim.owner(), this.session.sessionId()),
					attempt + 1, result);
		}
		else if (outcome == KeeperException.Code.NOCHILDRENFOREPHEMERALS) {
			// A plain holder: a fair claim waits for it (without a place in a queue); the
			// other kinds are another family.
			if (claim.kind().type() == LockKind.Type.FAIR) {
				result.complete(
						AcquireResult.heldByAnother(null, ZooKeeperWait.forNode(this.session.fixForNamespace(path))));
			}
			else {
				result.completeExceptionally(ZooKeeperKindNode.conflict(claim, LockKind.EXCLUSIVE, "", this.backend));
			}
		}
		else {
			result.completeExceptionally(KeeperException.create(outcome, path));
		}
	}

	/**
	 * Whether the queue came and went under this attempt too often: others take and leave
	 * the key meanwhile, so it is busy, and the engine tries again at once while its
	 * caller waits.
	 */
	private static boolean tooManyAttempts(int attempt, CompletableFuture<AcquireResult> result) {
		if (attempt > CREATE_ATTEMPTS) {
			result.complete(AcquireResult.heldByAnother(null));
			return true;
		}
		return false;
	}

	/** Lists the queue, and tells from it whether the claim's node holds the lock. */
	private void list(Claim claim, String path, QueuedNode node, int attempt, CompletableFuture<AcquireResult> result) {
		ZooKeeper zooKeeper = this.session.handle(result);
		if (zooKeeper == null) {
			return;
		}
		String queue = this.session.fixForNamespace(path);
		if (node.sessionId != zooKeeper.getSessionId()) {
			leaveGivenUpSession(claim, path, queue, node, attempt, result);
			return;
		}
		zooKeeper.getChildren(queue, false, (code, name, context, children) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.NONODE) {
				// The node went with an earlier session, and its queue with it.
				this.claims.forgetIf(claim, node);
				create(claim, path, attempt + 1, result);
				return;
			}
			if (outcome != KeeperException.Code.OK) {
				result.completeExceptionally(KeeperException.create(outcome, queue));
				return;
			}
			Listing listing = ZooKeeperKindQueue.decide(children, node.name, claim.kind());
			listing.duplicates().forEach((duplicate) -> this.releases.deleteDuplicate(queue, duplicate, claim.key()));
			if (listing.decision() instanceof Hold) {
				result.complete(AcquireResult.acquired(node.token));
			}
			else if (listing.decision() instanceof Wait wait) {
				// A fair node watches the node just before it.
				node.after = (claim.kind().type() == LockKind.Type.FAIR) ? wait.watched().get(0) : null;
				List<String> watched = wait.watched().stream().map((child) -> queue + "/" + child).toList();
				result.complete(AcquireResult.heldByAnother(null, new ZooKeeperWait(watched,
						(wait.watchQueue()) ? queue : null, (wait.deletionAdmits()) ? node : null)));
			}
			else if (listing.decision() instanceof Conflict conflict) {
				this.claims.forgetIf(claim, node);
				// Nothing gives a failed attempt of a conflict back: a node left here
				// would turn the key's own kind away once the holders before it left.
				this.session.retriedOnReconnection(() -> this.releases.delete(queue, node.name))
					.whenComplete((deleted, failure) -> {
						if (failure != null) {
							logger.warn("Could not delete the node '" + node.name + "' of lock '" + claim.key()
									+ "', asked for as another kind than the key is held as; it stays in the queue "
									+ "until its session ends", failure);
						}
						result.completeExceptionally(
								ZooKeeperKindNode.conflict(claim, conflict.heldAs(), conflict.node(), this.backend));
					});
			}
			else {
				// The node is gone: it went with an earlier session.
				this.claims.forgetIf(claim, node);
				create(claim, path, attempt + 1, result);
			}
		}, null);
	}

	/**
	 * Deletes the claim's node of a session the client no longer uses, then queues the
	 * claim again on the current session. The client gives a session up on its own after
	 * a session timeout spent disconnected, while the server may keep it, and its node,
	 * until its own timeout runs out: a node of that session must never hold, as the
	 * server deletes it then and frees the key while the claim holds.
	 */
	private void leaveGivenUpSession(Claim claim, String path, String queue, QueuedNode node, int attempt,
			CompletableFuture<AcquireResult> result) {
		this.claims.forgetIf(claim, node);
		// Sent again after a lost answer: nothing else deletes the node, which keeps the
		// claim waiting behind it until the server ends that session.
		this.session.retriedOnReconnection(() -> this.releases.delete(queue, node.name))
			.whenComplete((deleted, failure) -> {
				if (failure != null) {
					// Safe to queue again: the node, before the new one, keeps the claim
					// waiting until the server deletes it with its session.
					logger.warn("Could not delete the node '" + node.name + "' of lock '" + claim.key()
							+ "' of a session given up; it stays in the queue until the server ends that session",
							failure);
				}
				// Leaving is no failed creation. Counted as one, it left the creation
				// too few attempts when the delete emptied the root and the server
				// removed it (one attempt more): a free key was answered held.
				create(claim, path, attempt, result);
			});
	}

	/**
	 * Leaves the queue: deletes the claim's node, held or waiting; a claim whose node
	 * this backend does not know (an answer lost with the connection, or a release from
	 * another instance with the same owner) has its nodes found by their name.
	 */
	CompletableFuture<Boolean> release(Claim claim) {
		String queue = this.session.fixForNamespace(this.session.paths().lockPath(claim.key()));
		QueuedNode node = this.claims.forget(claim);
		if (node != null) {
			// A later node of this backend keeps the queue: no need to read it first.
			boolean othersBehind = this.claims.hasNodeAfter(claim, node);
			ZooKeeperLostAnswer lost = new ZooKeeperLostAnswer();
			return this.session.retriedOnReconnection(
					() -> this.releases.delete(queue, node.name, othersBehind, node.queueWatch, lost, node.sessionId))
				.thenApply((deleted) -> {
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
		return AcquireResult.acquired(waiting.token);
	}

	/** Whether the claim's node is still in its queue, on this session. */
	CompletableFuture<Boolean> owned(Claim claim) {
		QueuedNode node = this.claims.node(claim);
		if (node == null) {
			return CompletableFuture.completedFuture(false);
		}
		String queue = this.session.fixForNamespace(this.session.paths().lockPath(claim.key()));
		return this.session.retriedOnReconnection(() -> this.releases.exists(queue + "/" + node.name));
	}

	/** Waits on the nodes the claim's last attempt named. */
	CompletableFuture<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		if (lastAttempt.hint() instanceof ZooKeeperWait wait) {
			return wait.await(this.session, claim.key(), deadline);
		}
		return CompletableFuture.completedFuture(null);
	}

	private static byte[] owner(Claim claim) {
		return claim.owner().getBytes(StandardCharsets.UTF_8);
	}

}
