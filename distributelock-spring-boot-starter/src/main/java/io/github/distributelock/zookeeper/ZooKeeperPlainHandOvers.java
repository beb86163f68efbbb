package io.github.distributelock.zookeeper;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.HandOverLockBackend.HandOver;
import io.github.distributelock.core.LockBackend.Claim;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The hand-over of a plain lock ({@link ZooKeeperPlainLocks}) from its holder to the next
 * owner of this client: a write of the next owner into the lock node, at the version read
 * with the holder's owner, on one session.
 */
final class ZooKeeperPlainHandOvers {

	private final ZooKeeperSession session;

	private final ZooKeeperPlainLocks plain;

	ZooKeeperPlainHandOvers(ZooKeeperSession session, ZooKeeperPlainLocks plain) {
		this.session = session;
		this.plain = plain;
	}

	/**
	 * Gives the lock node of {@code holder} to {@code next}: reads the owner and the
	 * version, then writes the next owner at that version, both on one ZooKeeper handle,
	 * so one session (one fsync, where a release and a new node cost two). The fencing
	 * token of {@code next} is the zxid of that write, which tops every zxid before it.
	 * If the node is not the holder's, {@code next} makes an attempt instead.
	 */
	CompletableFuture<HandOver> handOver(Claim holder, Claim next) {
		ZooKeeperLostAnswer lost = new ZooKeeperLostAnswer();
		return this.session.retriedOnReconnection(() -> handOverOnOneSession(holder, next, lost));
	}

	/**
	 * One run of a hand-over.
	 * @param lost the writes of the runs before whose answer was lost
	 */
	private CompletableFuture<HandOver> handOverOnOneSession(Claim holder, Claim next, ZooKeeperLostAnswer lost) {
		String path = this.session.fixForNamespace(this.session.paths().lockPath(holder.key()));
		byte[] expected = ZooKeeperPlainLocks.owner(holder);
		CompletableFuture<HandOver> handedOver = new CompletableFuture<>();
		ZooKeeper zooKeeper = this.session.handle(handedOver);
		if (zooKeeper == null) {
			return handedOver;
		}
		zooKeeper.getData(path, false, (code, name, context, data, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.OK && Arrays.equals(data, ZooKeeperPlainLocks.owner(next))
					&& stat.getEphemeralOwner() == zooKeeper.getSessionId() && lost.ran(zooKeeper)) {
				// The node carries the next owner by a write of this hand-over whose
				// answer was lost.
				handedOver.complete(new HandOver(true, AcquireResult.acquired(stat.getMzxid())));
			}
			else if (outcome == KeeperException.Code.NONODE || (outcome == KeeperException.Code.OK
					&& (!Arrays.equals(data, expected) || stat.getEphemeralOwner() != zooKeeper.getSessionId()))) {
				attemptInstead(next, handedOver);
			}
			else if (outcome != KeeperException.Code.OK) {
				handedOver.completeExceptionally(KeeperException.create(outcome, path));
			}
			else if (stat.getVersion() + 1 == ZooKeeperKindLocks.QUEUE_VERSION) {
				// An empty queue is deleted by its version, so a lock node must never
				// take it: the first hand-over writes twice, in one transaction.
				zooKeeper.multi(
						List.of(Op.setData(path, ZooKeeperPlainLocks.owner(next), stat.getVersion()),
								Op.setData(path, ZooKeeperPlainLocks.owner(next), stat.getVersion() + 1)),
						(multiCode, multiPath, multiContext, results) -> written(zooKeeper, next, multiCode,
								(multiCode == KeeperException.Code.OK.intValue())
										? ((OpResult.SetDataResult) results.get(1)).getStat() : null,
								path, lost, handedOver),
						null);
			}
			else {
				zooKeeper
					.setData(
							path, ZooKeeperPlainLocks.owner(next), stat.getVersion(), (setCode, setPath, setContext,
									setStat) -> written(zooKeeper, next, setCode, setStat, path, lost, handedOver),
							null);
			}
		}, null);
		return handedOver;
	}

	private void written(ZooKeeper zooKeeper, Claim next, int code, @Nullable Stat written, String path,
			ZooKeeperLostAnswer lost, CompletableFuture<HandOver> handedOver) {
		KeeperException.Code outcome = KeeperException.Code.get(code);
		if (outcome == KeeperException.Code.OK && written != null) {
			handedOver.complete(new HandOver(true, AcquireResult.acquired(written.getMzxid())));
		}
		else if (outcome == KeeperException.Code.NONODE || outcome == KeeperException.Code.BADVERSION) {
			attemptInstead(next, handedOver);
		}
		else {
			// The node was read as this session's.
			lost.answered(zooKeeper, outcome, zooKeeper.getSessionId());
			handedOver.completeExceptionally(KeeperException.create(outcome, path));
		}
	}

	private void attemptInstead(Claim next, CompletableFuture<HandOver> handedOver) {
		this.plain.tryAcquire(next).whenComplete((attempt, failure) -> {
			if (failure != null) {
				handedOver.completeExceptionally(failure);
			}
			else {
				handedOver.complete(new HandOver(false, attempt));
			}
		});
	}

}
