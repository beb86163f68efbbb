package io.github.distributelock.zookeeper;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.MultiKeyAcquireResult;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * Several plain locks taken in one ZooKeeper transaction ({@code multi}) and released in
 * one: the same ephemeral nodes {@code <root>/<key>}, holding the same owner tokens, as
 * {@link ZooKeeperPlainLocks} creates one at a time, so single-key and multi-key holders
 * of a key, and nodes of the original starter, exclude each other.
 * <p>
 * The transaction creates every node or none. Its creates are {@code create2} requests,
 * whose results carry each node's stat, so each fencing token (the node's {@code czxid},
 * here the transaction's zxid, shared by the keys of one acquisition) comes with the
 * answer, without a read. A transaction that fails on an existing node is answered as the
 * single-key attempt of that key would be (a holder to wait for, a queue of the other
 * kinds to wait for or a conflict, an empty queue deleted and the transaction sent
 * again); a missing root is created as a container first.
 * <p>
 * They are released in one transaction too ({@link ZooKeeperMultiKeyReleases}).
 */
final class ZooKeeperMultiKeyLocks {

	/** Attempts to create nodes whose container parent the server has just removed. */
	private static final int CREATE_ATTEMPTS = 3;

	private final ZooKeeperSession session;

	private final ZooKeeperPlainLocks plain;

	ZooKeeperMultiKeyLocks(ZooKeeperSession session, ZooKeeperPlainLocks plain) {
		this.session = session;
		this.plain = plain;
	}

	/** Whether every claim is a plain lock. */
	boolean batches(List<Claim> claims) {
		return claims.stream().allMatch(ZooKeeperPlainLocks::plain);
	}

	CompletableFuture<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims) {
		CompletableFuture<MultiKeyAcquireResult> result = new CompletableFuture<>();
		List<Op> creates = new ArrayList<>();
		try {
			for (Claim claim : claims) {
				creates.add(create2(this.session.paths().lockPath(claim.key()), ZooKeeperPlainLocks.owner(claim)));
			}
		}
		catch (Exception ex) {
			result.completeExceptionally(ex);
			return result;
		}
		create(claims, creates, 1, result);
		return result;
	}

	/**
	 * A {@code create2} of an ephemeral node, uncompressed whatever the client's settings
	 * as the owner is the wire format, inside the client's namespace and with the ACL its
	 * provider gives the path: as Curator would build the create, which its transactions
	 * send as a plain {@code create} that does not answer with the node's stat.
	 */
	private Op create2(String path, byte[] owner) throws Exception {
		Op curatorCreate = this.session.client()
			.transactionOp()
			.create()
			.uncompressed()
			.withMode(CreateMode.EPHEMERAL)
			.forPath(path, owner)
			.get();
		CreateRequest request = (CreateRequest) curatorCreate.toRequestRecord();
		return Op.create(request.getPath(), request.getData(),
				CreateOptions.newBuilder(request.getAcl(), CreateMode.EPHEMERAL).build());
	}

	private void create(List<Claim> claims, List<Op> creates, int attempt,
			CompletableFuture<MultiKeyAcquireResult> result) {
		ZooKeeper zooKeeper = this.session.handle(result);
		if (zooKeeper == null) {
			return;
		}
		zooKeeper.multi(creates, (code, path, context, results) -> {
			if (KeeperException.Code.get(code) == KeeperException.Code.OK) {
				result.complete(MultiKeyAcquireResult.acquired(tokens(results)));
				return;
			}
			int failed = failedOp(results);
			KeeperException.Code outcome = (failed >= 0)
					? KeeperException.Code.get(((OpResult.ErrorResult) results.get(failed)).getErr())
					: KeeperException.Code.get(code);
			String failedPath = (failed >= 0) ? creates.get(failed).getPath() : null;
			if (outcome == KeeperException.Code.NODEEXISTS && failed >= 0) {
				held(zooKeeper, claims, creates, failed, attempt, result);
			}
			else if (outcome == KeeperException.Code.NONODE && attempt < CREATE_ATTEMPTS) {
				// No root yet, or the server removed it as an empty container just now.
				this.session.createRoot().whenComplete((done, failure) -> {
					if (failure != null) {
						result.completeExceptionally(failure);
					}
					else {
						create(claims, creates, attempt + 1, result);
					}
				});
			}
			else {
				result.completeExceptionally(KeeperException.create(outcome, failedPath));
			}
		}, null);
	}

	private static List<Long> tokens(List<OpResult> results) {
		List<Long> tokens = new ArrayList<>();
		for (OpResult created : results) {
			if (!(created instanceof OpResult.CreateResult create) || create.getStat() == null) {
				throw new IllegalStateException("ZooKeeper answered a create2 in a transaction without the node's "
						+ "stat (" + created + "); a server of version 3.5 or later is required");
			}
			tokens.add(create.getStat().getCzxid());
		}
		return tokens;
	}

	/** The position of the operation that failed the transaction, or -1 if none says. */
	static int failedOp(List<OpResult> results) {
		for (int i = 0; results != null && i < results.size(); i++) {
			if (results.get(i) instanceof OpResult.ErrorResult error) {
				KeeperException.Code outcome = KeeperException.Code.get(error.getErr());
				if (outcome != KeeperException.Code.OK && outcome != KeeperException.Code.RUNTIMEINCONSISTENCY) {
					return i;
				}
			}
		}
		return -1;
	}

	/**
	 * Answers a transaction that failed on the existing node of claim {@code index} as an
	 * attempt of that claim alone would: held by another (or gone since, which the wait
	 * finds at once), or a queue of the other kinds.
	 */
	private void held(ZooKeeper zooKeeper, List<Claim> claims, List<Op> creates, int index, int attempt,
			CompletableFuture<MultiKeyAcquireResult> result) {
		String path = creates.get(index).getPath();
		CompletableFuture<AcquireResult> single = new CompletableFuture<>();
		single.whenComplete((held, failure) -> {
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(MultiKeyAcquireResult.heldByAnother(index, held));
			}
		});
		zooKeeper.getData(path, false, (code, name, context, data, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.OK && stat.getEphemeralOwner() == 0) {
				this.plain.metQueue(zooKeeper, claims.get(index), path, () -> {
					if (attempt < CREATE_ATTEMPTS) {
						// An empty queue was deleted, or the queue is gone: send the
						// transaction again; the single result is left unanswered.
						create(claims, creates, attempt + 1, result);
					}
					else {
						single.complete(AcquireResult.heldByAnother(null));
					}
				}, single);
			}
			else if (outcome == KeeperException.Code.OK || outcome == KeeperException.Code.NONODE) {
				// A node of this owner and session can be left only by an attempt whose
				// answer was lost and whose give-back failed: the engine retries that
				// release, and its deletion wakes this wait too.
				single.complete(AcquireResult.heldByAnother(null));
			}
			else {
				single.completeExceptionally(KeeperException.create(outcome, path));
			}
		}, null);
	}

}
