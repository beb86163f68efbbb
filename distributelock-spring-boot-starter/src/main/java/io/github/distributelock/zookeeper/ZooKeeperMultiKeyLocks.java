package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
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
 * Release reads each node's owner and version in one read-only {@code multi} (answered by
 * the connected server; reads cost the ensemble no transaction) and deletes the nodes of
 * this owner in one transaction of versioned deletes, on the same session handle as the
 * reads, as {@link ZooKeeperPlainLocks} does for one key. The read-only {@code multi}
 * needs a server of ZooKeeper 3.6 or later.
 */
final class ZooKeeperMultiKeyLocks {

	/** Attempts to create nodes whose container parent the server has just removed. */
	private static final int CREATE_ATTEMPTS = 3;

	/** The version read of a node that a lost delete of the same release removed. */
	private static final int GONE_BY_OWN_DELETE = -2;

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
				creates.add(create2(this.session.paths().lockPath(claim.key()), owner(claim)));
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
	private static int failedOp(List<OpResult> results) {
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

	/**
	 * Deletes the nodes that carry their claim's owner, each of the version read with its
	 * owner, in one transaction on the handle of the reads, so one session.
	 */
	CompletableFuture<List<Boolean>> releaseAll(List<Claim> claims) {
		ZooKeeperLostAnswer[] lost = new ZooKeeperLostAnswer[claims.size()];
		Arrays.setAll(lost, (claim) -> new ZooKeeperLostAnswer());
		return this.session.retriedOnReconnection(() -> releaseOnOneSession(claims, lost));
	}

	/**
	 * One run of a release.
	 * @param lost for each claim, the deletes of the runs before whose answer was lost
	 */
	private CompletableFuture<List<Boolean>> releaseOnOneSession(List<Claim> claims, ZooKeeperLostAnswer[] lost) {
		CompletableFuture<List<Boolean>> released = new CompletableFuture<>();
		ZooKeeper zooKeeper = this.session.handle(released);
		if (zooKeeper == null) {
			return released;
		}
		List<String> paths = new ArrayList<>();
		List<Op> reads = new ArrayList<>();
		for (Claim claim : claims) {
			String path = this.session.fixForNamespace(this.session.paths().lockPath(claim.key()));
			paths.add(path);
			reads.add(Op.getData(path));
		}
		// The reads in one request (a read-only multi, answered by the connected server
		// without a transaction): measured on one server, it cost 134 us at p50 for two
		// nodes where one getData cost 125 us and two sent together 202 us, as the server
		// answers a session's reads one after the other.
		zooKeeper.multi(reads, (code, path, context, results) -> {
			int[] versions = new int[claims.size()];
			long[] nodeSessions = new long[claims.size()];
			for (int i = 0; i < claims.size(); i++) {
				OpResult read = (results != null && results.size() == claims.size()) ? results.get(i) : null;
				KeeperException.Code outcome = (read instanceof OpResult.ErrorResult error)
						? KeeperException.Code.get(error.getErr()) : KeeperException.Code.get(code);
				if (read instanceof OpResult.GetDataResult data
						&& Arrays.equals(data.getData(), owner(claims.get(i)))) {
					versions[i] = data.getStat().getVersion();
					nodeSessions[i] = data.getStat().getEphemeralOwner();
				}
				else if (read instanceof OpResult.GetDataResult || outcome == KeeperException.Code.NONODE) {
					versions[i] = lost[i].ran(zooKeeper) ? GONE_BY_OWN_DELETE : -1;
				}
				else {
					released.completeExceptionally(KeeperException.create(
							(outcome != KeeperException.Code.OK) ? outcome : KeeperException.Code.SYSTEMERROR,
							paths.get(i)));
					return;
				}
			}
			deleteOwned(zooKeeper, claims, paths, versions, nodeSessions, lost, released);
		}, null);
		return released;
	}

	private void deleteOwned(ZooKeeper zooKeeper, List<Claim> claims, List<String> paths, int[] versions,
			long[] nodeSessions, ZooKeeperLostAnswer[] lost, CompletableFuture<List<Boolean>> released) {
		List<Op> deletes = new ArrayList<>();
		List<Boolean> owned = new ArrayList<>();
		for (int i = 0; i < claims.size(); i++) {
			owned.add(versions[i] >= 0 || versions[i] == GONE_BY_OWN_DELETE);
			if (versions[i] >= 0) {
				deletes.add(Op.delete(paths.get(i), versions[i]));
			}
		}
		if (deletes.isEmpty()) {
			released.complete(owned);
			return;
		}
		zooKeeper.multi(deletes, (code, path, context, results) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.OK) {
				released.complete(owned);
			}
			else if (outcome == KeeperException.Code.NONODE || outcome == KeeperException.Code.BADVERSION) {
				// A node changed since it was read (another instance released it by its
				// value), so the transaction deleted none: release each on its own.
				releaseOneByOne(claims, released);
			}
			else {
				for (int i = 0; i < claims.size(); i++) {
					if (versions[i] >= 0) {
						lost[i].answered(zooKeeper, outcome, nodeSessions[i]);
					}
				}
				int failed = failedOp(results);
				released.completeExceptionally(
						KeeperException.create(outcome, (failed >= 0) ? deletes.get(failed).getPath() : null));
			}
		}, null);
	}

	private void releaseOneByOne(List<Claim> claims, CompletableFuture<List<Boolean>> released) {
		List<CompletableFuture<Boolean>> each = claims.stream().map(this.plain::release).toList();
		CompletableFuture.allOf(each.toArray(CompletableFuture<?>[]::new)).whenComplete((done, failure) -> {
			if (failure != null) {
				released.completeExceptionally(failure);
			}
			else {
				released.complete(each.stream().map(CompletableFuture::join).toList());
			}
		});
	}

	private static byte[] owner(Claim claim) {
		return claim.owner().getBytes(StandardCharsets.UTF_8);
	}

}
