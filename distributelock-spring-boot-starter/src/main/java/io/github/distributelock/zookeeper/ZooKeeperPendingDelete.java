package io.github.distributelock.zookeeper;

import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.Deadline;

/**
 * What a claim waits for, carried from its attempt to its wait in
 * {@link io.github.distributelock.core.AcquireResult#hint()}, when its node of a session
 * the client gave up is still in the queue and its delete waits for the client to be
 * connected again: the claim queues again on its new session once the delete has ended.
 *
 * @param deleted completes once the delete has ended, the node deleted or the failure
 * logged; never fails
 */
record ZooKeeperPendingDelete(CompletableFuture<Void> deleted) {

	/**
	 * Completes when the delete has ended, or at {@code deadline}; ending the wait leaves
	 * the delete going.
	 */
	CompletableFuture<Void> await(ZooKeeperSession session, Deadline deadline) {
		CompletableFuture<Void> ended = new CompletableFuture<>();
		this.deleted.whenComplete((done, failure) -> ended.complete(null));
		session.deadlines().expireAt(ended, deadline);
		return ended;
	}

}
