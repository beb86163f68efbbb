package io.github.distributelock.zookeeper;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.LockBackend.Claim;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;

/**
 * The release of several plain locks taken together ({@link ZooKeeperMultiKeyLocks}):
 * each node's owner and version read in one read-only {@code multi} (answered by the
 * connected server; reads cost the ensemble no transaction), and the nodes of this owner
 * deleted in one transaction of versioned deletes, on the same session handle as the
 * reads, as {@link ZooKeeperPlainLocks} does for one key. The read-only {@code multi}
 * needs a server of ZooKeeper 3.6 or later.
 */
final class ZooKeeperMultiKeyReleases {

	/** The version read of a node that a lost delete of the same release removed. */
	private static final int GONE_BY_OWN_DELETE = -2;

	private final ZooKeeperSession session;

	private final ZooKeeperPlainLocks plain;

	ZooKeeperMultiKeyReleases(ZooKeeperSession session, ZooKeeperPlainLocks plain) {
		this.session = session;
		this.plain = plain;
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
						&& Arrays.equals(data.getData(), ZooKeeperPlainLocks.owner(claims.get(i)))) {
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
				int failed = ZooKeeperMultiKeyLocks.failedOp(results);
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

}
