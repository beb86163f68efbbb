package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Conflict;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Decision;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Wait;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The plain exclusive lock, the wire format of the original starter: an ephemeral node
 * {@code <root>/<key>} holding the owner token, created in one request, removed by a
 * delete of the version read with the owner, both on one session; its fencing token is
 * its {@code czxid}, or, for a node handed from one owner of this session to the next by
 * a write of the version read ({@link ZooKeeperPlainHandOvers}), that write's zxid.
 * Waiters watch the node.
 * <p>
 * An attempt that finds a queue of the other kinds at the path (a node of no session)
 * waits for a queue of fair locks to end, fails for another kind, and deletes an empty
 * queue that a crash left behind.
 */
final class ZooKeeperPlainLocks {

	/** Attempts to create a node whose container parent the server has just removed. */
	private static final int CREATE_ATTEMPTS = 3;

	private final ZooKeeperSession session;

	private final ZooKeeperEmptyQueues emptyQueues;

	private final String backend;

	ZooKeeperPlainLocks(ZooKeeperSession session, ZooKeeperEmptyQueues emptyQueues, String backend) {
		this.session = session;
		this.emptyQueues = emptyQueues;
		this.backend = backend;
	}

	CompletableFuture<AcquireResult> tryAcquire(Claim claim) {
		String path = this.session.paths().lockPath(claim.key());
		CompletableFuture<AcquireResult> result = new CompletableFuture<>();
		create(claim, path, owner(claim), 1, result);
		return result;
	}

	/**
	 * Creates the lock node, uncompressed whatever the client's settings, as the owner is
	 * the wire format, with the client's ACL provider.
	 */
	private void create(Claim claim, String path, byte[] owner, int attempt, CompletableFuture<AcquireResult> result) {
		try {
			this.session.client()
				.create()
				.uncompressed()
				.storingStatIn(new Stat())
				.withMode(CreateMode.EPHEMERAL)
				.inBackground((curator, event) -> created(claim, path, owner, attempt, event, result))
				.forPath(path, owner);
		}
		catch (Exception ex) {
			result.completeExceptionally(ex);
		}
	}

	private void created(Claim claim, String path, byte[] owner, int attempt, CuratorEvent event,
			CompletableFuture<AcquireResult> result) {
		KeeperException.Code outcome = KeeperException.Code.get(event.getResultCode());
		if (outcome == KeeperException.Code.OK) {
			result.complete(AcquireResult.acquired(event.getStat().getCzxid()));
		}
		else if (outcome == KeeperException.Code.NODEEXISTS) {
			// Curator retries a create whose answer was lost with the connection, and the
			// retry finds the node the first request made: that one is ours.
			ownNode(claim, path, owner, attempt, result);
		}
		else if (outcome == KeeperException.Code.NONODE && attempt < CREATE_ATTEMPTS) {
			// No root yet, or the server removed it as an empty container just now.
			this.session.createRoot().whenComplete((done, failure) -> {
				if (failure != null) {
					result.completeExceptionally(failure);
				}
				else {
					create(claim, path, owner, attempt + 1, result);
				}
			});
		}
		else {
			result.completeExceptionally(KeeperException.create(outcome, event.getPath()));
		}
	}

	/**
	 * Acquired if the existing node is this owner's and of this session; a node of no
	 * session is the queue of the other kinds of lock.
	 */
	private void ownNode(Claim claim, String path, byte[] owner, int attempt, CompletableFuture<AcquireResult> result) {
		String fullPath = this.session.fixForNamespace(path);
		ZooKeeper zooKeeper = this.session.handle(result);
		if (zooKeeper == null) {
			return;
		}
		zooKeeper.getData(fullPath, false, (code, name, context, data, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.OK && Arrays.equals(data, owner)
					&& stat.getEphemeralOwner() == zooKeeper.getSessionId()) {
				// The zxid of the write that gave this owner the node: its creation, or a
				// hand-over from an owner before it.
				result.complete(AcquireResult.acquired(stat.getMzxid()));
			}
			else if (outcome == KeeperException.Code.OK && stat.getEphemeralOwner() == 0) {
				metQueue(zooKeeper, claim, fullPath, () -> {
					if (attempt < CREATE_ATTEMPTS) {
						create(claim, path, owner, attempt + 1, result);
					}
					else {
						result.complete(AcquireResult.heldByAnother(null));
					}
				}, result);
			}
			else if (outcome == KeeperException.Code.OK || outcome == KeeperException.Code.NONODE) {
				result.complete(AcquireResult.heldByAnother(null));
			}
			else {
				result.completeExceptionally(KeeperException.create(outcome, fullPath));
			}
		}, null);
	}

	/**
	 * Answers an attempt that found a queue at the path: a queue of fair claims is waited
	 * for (its last node, and the queue itself), another kind is a conflict, and an empty
	 * queue, which a crash or a race left behind, is deleted so that the attempt can
	 * create its node.
	 */
	void metQueue(ZooKeeper zooKeeper, Claim claim, String queue, Runnable createAgain,
			CompletableFuture<AcquireResult> result) {
		zooKeeper.getChildren(queue, false, (code, name, context, children) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.NONODE) {
				createAgain.run();
				return;
			}
			if (outcome != KeeperException.Code.OK) {
				result.completeExceptionally(KeeperException.create(outcome, queue));
				return;
			}
			Decision decision = ZooKeeperKindQueue.forPlain(children);
			if (decision instanceof Wait wait) {
				result.complete(AcquireResult.heldByAnother(null,
						new ZooKeeperWait(List.of(queue, queue + "/" + wait.watched().get(0)), null, null)));
			}
			else if (decision instanceof Conflict conflict) {
				result.completeExceptionally(
						ZooKeeperKindNode.conflict(claim, conflict.heldAs(), conflict.node(), this.backend));
			}
			else {
				this.emptyQueues.deleteEmptyQueue(queue).whenComplete((free, failure) -> {
					if (Boolean.TRUE.equals(free)) {
						createAgain.run();
					}
					else {
						// A member joined since the listing, or a plain node took the
						// path: the children's watch fires at the node's deletion, and
						// at the member's leaving too, which a crash does without
						// deleting the queue.
						result.complete(AcquireResult.heldByAnother(null, new ZooKeeperWait(List.of(), queue, null)));
					}
				});
			}
		}, null);
	}

	/**
	 * Whether the lock node still carries this owner and belongs to this session.
	 */
	CompletableFuture<Boolean> owned(Claim claim) {
		return this.session.retriedOnReconnection(() -> ownedOnOneSession(claim));
	}

	private CompletableFuture<Boolean> ownedOnOneSession(Claim claim) {
		String path = this.session.fixForNamespace(this.session.paths().lockPath(claim.key()));
		byte[] expected = owner(claim);
		CompletableFuture<Boolean> owned = new CompletableFuture<>();
		ZooKeeper zooKeeper = this.session.handle(owned);
		if (zooKeeper == null) {
			return owned;
		}
		zooKeeper.getData(path, false, (code, name, context, data, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.OK || outcome == KeeperException.Code.NONODE) {
				owned.complete(Arrays.equals(data, expected) && stat != null
						&& stat.getEphemeralOwner() == zooKeeper.getSessionId());
			}
			else {
				owned.completeExceptionally(KeeperException.create(outcome, path));
			}
		}, null);
		return owned;
	}

	/**
	 * Deletes the lock node if it carries this owner: reads the owner and the version,
	 * then deletes that version, both on one ZooKeeper handle, so one session.
	 */
	CompletableFuture<Boolean> release(Claim claim) {
		ZooKeeperLostAnswer lost = new ZooKeeperLostAnswer();
		return this.session.retriedOnReconnection(() -> releaseOnOneSession(claim, lost));
	}

	/**
	 * One run of a release.
	 * @param lost the deletes of the runs before whose answer was lost
	 */
	private CompletableFuture<Boolean> releaseOnOneSession(Claim claim, ZooKeeperLostAnswer lost) {
		String path = this.session.fixForNamespace(this.session.paths().lockPath(claim.key()));
		byte[] expected = owner(claim);
		CompletableFuture<Boolean> released = new CompletableFuture<>();
		ZooKeeper zooKeeper = this.session.handle(released);
		if (zooKeeper == null) {
			return released;
		}
		zooKeeper.getData(path, false, (code, name, context, data, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.NONODE
					|| (outcome == KeeperException.Code.OK && !Arrays.equals(data, expected))) {
				released.complete(lost.ran(zooKeeper));
			}
			else if (outcome != KeeperException.Code.OK) {
				released.completeExceptionally(KeeperException.create(outcome, path));
			}
			else {
				zooKeeper.delete(path, stat.getVersion(), (deleteCode, deleted, deleteContext) -> {
					KeeperException.Code deleteOutcome = KeeperException.Code.get(deleteCode);
					if (deleteOutcome == KeeperException.Code.OK) {
						released.complete(true);
					}
					else if (deleteOutcome == KeeperException.Code.NONODE
							|| deleteOutcome == KeeperException.Code.BADVERSION) {
						released.complete(false);
					}
					else {
						lost.answered(zooKeeper, deleteOutcome, stat.getEphemeralOwner());
						released.completeExceptionally(KeeperException.create(deleteOutcome, path));
					}
				}, null);
			}
		}, null);
		return released;
	}

	/** Waits on the lock node, or on what the last attempt found at its path. */
	CompletableFuture<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		ZooKeeperWait wait = (lastAttempt.hint() instanceof ZooKeeperWait found) ? found
				: ZooKeeperWait.forNode(this.session.fixForNamespace(this.session.paths().lockPath(claim.key())));
		return wait.await(this.session, claim.key(), deadline);
	}

	/** The data of a lock node held by {@code claim}. */
	static byte[] owner(Claim claim) {
		return claim.owner().getBytes(StandardCharsets.UTF_8);
	}

	static boolean plain(Claim claim) {
		return claim.kind().type() == LockKind.Type.EXCLUSIVE;
	}

}
