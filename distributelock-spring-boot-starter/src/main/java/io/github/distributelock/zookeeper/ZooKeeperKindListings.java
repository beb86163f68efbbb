package io.github.distributelock.zookeeper;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.zookeeper.ZooKeeperKindClaims.QueuedNode;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Conflict;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Hold;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Listing;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Wait;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/**
 * The later attempts of a fair, read/write or permit claim on ZooKeeper, and the first
 * one's once its node is created: the queue is listed, and {@link ZooKeeperKindQueue}
 * reads the listing. A node of a session the client gave up
 * ({@link ZooKeeperGivenUpNodes}), or one asked for as a kind the key is not held as, is
 * deleted here, as nothing else would delete it; a node found gone is created again by
 * {@link ZooKeeperKindAttempts}.
 */
final class ZooKeeperKindListings {

	private final ZooKeeperSession session;

	private final ZooKeeperKindReleases releases;

	private final ZooKeeperKindClaims claims;

	private final ZooKeeperGivenUpNodes givenUp;

	private final String backend;

	private final Creation create;

	ZooKeeperKindListings(ZooKeeperSession session, ZooKeeperKindReleases releases, ZooKeeperKindClaims claims,
			ZooKeeperGivenUpNodes givenUp, String backend, Creation create) {
		this.session = session;
		this.releases = releases;
		this.claims = claims;
		this.givenUp = givenUp;
		this.backend = backend;
		this.create = create;
	}

	/** Lists the queue, and tells from it whether the claim's node holds the lock. */
	void list(Claim claim, String path, QueuedNode node, int attempt, CompletableFuture<AcquireResult> result) {
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
				this.create.create(claim, path, attempt + 1, result);
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
				// The attempt fails once the delete has ended, or as soon as it waits for
				// the client to be connected again (up to a connection timeout, past the
				// caller's deadline): the delete then goes on alone.
				Runnable fail = () -> result.completeExceptionally(
						ZooKeeperKindNode.conflict(claim, conflict.heldAs(), conflict.node(), this.backend));
				this.releases
					.deleteLeftBehind(queue, node.name,
							"Could not delete the node '" + node.name + "' of lock '" + claim.key()
									+ "', asked for as another kind than the key is held as; it stays in the queue "
									+ "until its session ends",
							fail)
					.thenRun(fail);
			}
			else {
				// The node is gone: it went with an earlier session.
				this.claims.forgetIf(claim, node);
				this.create.create(claim, path, attempt + 1, result);
			}
		}, null);
	}

	/**
	 * Leaves the claim's node of a session the client no longer uses
	 * ({@link ZooKeeperGivenUpNodes#leave}), then queues the claim again on the current
	 * session, or, while the delete waits for the client to be connected again, answers
	 * the key held, and the claim waits for the delete.
	 */
	private void leaveGivenUpSession(Claim claim, String path, String queue, QueuedNode node, int attempt,
			CompletableFuture<AcquireResult> result) {
		this.givenUp.leave(claim, queue, node).thenAccept((pendingDelete) -> {
			if (pendingDelete == null) {
				// Leaving is no failed creation. Counted as one, it left the creation too
				// few attempts when the delete emptied the root and the server removed it
				// (one attempt more): a free key was answered held.
				this.create.create(claim, path, attempt, result);
			}
			else {
				result.complete(AcquireResult.heldByAnother(null, pendingDelete));
			}
		});
	}

	/**
	 * Creates the claim's node anew, and maybe its queue: {@link ZooKeeperKindAttempts}.
	 */
	@FunctionalInterface
	interface Creation {

		void create(Claim claim, String path, int attempt, CompletableFuture<AcquireResult> result);

	}

}
