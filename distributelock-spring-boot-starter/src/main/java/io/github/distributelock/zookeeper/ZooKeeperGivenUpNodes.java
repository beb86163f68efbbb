package io.github.distributelock.zookeeper;

import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.zookeeper.ZooKeeperKindClaims.QueuedNode;
import org.jspecify.annotations.Nullable;

/**
 * The queue nodes of claims that may live on another session than the client's current
 * one. The client gives a session up on its own after a session timeout spent
 * disconnected, while the server may keep it, and its nodes, until its own timeout runs
 * out: a node of that session must never hold, as the server deletes it then and frees
 * the key while the claim holds. Nothing but the claim's next attempt deletes it.
 */
final class ZooKeeperGivenUpNodes {

	private final ZooKeeperSession session;

	private final ZooKeeperKindReleases releases;

	private final ZooKeeperKindClaims claims;

	ZooKeeperGivenUpNodes(ZooKeeperSession session, ZooKeeperKindReleases releases, ZooKeeperKindClaims claims) {
		this.session = session;
		this.releases = releases;
		this.claims = claims;
	}

	/**
	 * The claim's node, which created its queue at {@code path}, with the session it
	 * lives on. A node whose transaction was sent while the client had no session (0),
	 * which Curator waited for, lives on the first the client opened, most likely the
	 * current one: that session is read from the node, and remembered. Taken for a node
	 * of a session given up, it was deleted, and the key's first claim queued again
	 * behind those that came later.
	 */
	CompletableFuture<QueuedNode> withSession(Claim claim, String path, QueuedNode node) {
		if (node.sessionId != 0) {
			return CompletableFuture.completedFuture(node);
		}
		return this.session.ephemeralOwner(this.session.fixForNamespace(path + "/" + node.name))
			.thenApply((nodeSession) -> {
				QueuedNode read = new QueuedNode(node.name, node.token, nodeSession, node.queueWatch);
				this.claims.remember(claim, read);
				return read;
			});
	}

	/**
	 * Forgets the claim's node of a session the client no longer uses, and deletes it. A
	 * delete that waits for the client to be connected again is not waited for: it takes
	 * up to a connection timeout, and the engine does not bound an attempt by its
	 * caller's deadline.
	 * @return completes with {@code null} once the delete has ended (the node deleted, or
	 * the failure logged), or, as soon as it waits for a reconnection, with what the
	 * claim then waits for: the node, still in the queue, holds it back
	 */
	CompletableFuture<@Nullable ZooKeeperPendingDelete> leave(Claim claim, String queue, QueuedNode node) {
		this.claims.forgetIf(claim, node);
		CompletableFuture<Void> deleted = new CompletableFuture<>();
		CompletableFuture<@Nullable ZooKeeperPendingDelete> ended = new CompletableFuture<>();
		// Safe to queue again if the delete fails: the node, before the new one, keeps
		// the claim waiting until the server deletes it with its session.
		this.releases
			.deleteLeftBehind(queue, node.name,
					"Could not delete the node '" + node.name + "' of lock '" + claim.key()
							+ "' of a session given up; it stays in the queue until the server ends that session",
					() -> ended.complete(new ZooKeeperPendingDelete(deleted)))
			.whenComplete((done, failure) -> {
				deleted.complete(null);
				ended.complete(null);
			});
		return ended;
	}

}
