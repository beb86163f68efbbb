package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.zookeeper.ZooKeeperKindClaims.QueuedNode;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.TransactionOp;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * One attempt of a fair, read/write or permit claim on ZooKeeper
 * ({@link ZooKeeperKindLocks} describes the queue): the claim's first attempt creates its
 * node, in one transaction with the queue when there is none; later attempts find the
 * node again and list the queue ({@link ZooKeeperKindListings}).
 */
final class ZooKeeperKindAttempts {

	/**
	 * Attempts to create a node whose queue the server or its last member just removed.
	 */
	private static final int CREATE_ATTEMPTS = 3;

	/** The data of a queue node, which says what it is to whoever reads the tree. */
	private static final byte[] QUEUE_DATA = "distributelock queue".getBytes(StandardCharsets.UTF_8);

	private final ZooKeeperSession session;

	private final String backend;

	private final ZooKeeperKindClaims claims;

	private final ZooKeeperGivenUpNodes givenUp;

	private final ZooKeeperKindListings listings;

	ZooKeeperKindAttempts(ZooKeeperSession session, ZooKeeperKindReleases releases, ZooKeeperKindClaims claims,
			String backend) {
		this.session = session;
		this.claims = claims;
		this.givenUp = new ZooKeeperGivenUpNodes(session, releases, claims);
		this.backend = backend;
		this.listings = new ZooKeeperKindListings(session, releases, claims, this.givenUp, backend, this::create);
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
			this.listings.list(claim, path, node, 1, result);
		}
		// Marked before the engine hears of it, and failures passed on as they are.
		CompletableFuture<AcquireResult> answered = new CompletableFuture<>();
		result.whenComplete((answer, failure) -> {
			if (failure != null) {
				answered.completeExceptionally(failure);
				return;
			}
			QueuedNode holding = (answer.acquired()) ? this.claims.node(claim) : null;
			if (holding != null) {
				holding.held = true;
			}
			answered.complete(answer);
		});
		return answered;
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
			this.givenUp.withSession(claim, path, node).whenComplete((known, failure) -> {
				if (failure != null) {
					// The node stays remembered: the give-back deletes it by name.
					result.completeExceptionally(failure);
				}
				else if (known.sessionId == this.session.sessionId()) {
					result.complete(AcquireResult.acquired(known.token));
				}
				else {
					// The client gave the session up before the answer came: the node
					// may live on that session, which the server ends later, freeing the
					// key under the claim. The listing deletes it and queues the claim
					// again.
					this.listings.list(claim, path, known, attempt, result);
				}
			});
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
			this.listings.list(claim, path, node, attempt, result);
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

	private static byte[] owner(Claim claim) {
		return claim.owner().getBytes(StandardCharsets.UTF_8);
	}

}
