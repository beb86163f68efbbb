package io.github.distributelock.zookeeper;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;

/**
 * Whether a write to a lock node whose answer was lost with the connection
 * ({@code CONNECTIONLOSS}) ran on the server, which the loss does not say: the one rule
 * of every release and hand-over that sends such a write again.
 * <p>
 * A node of a session that is still the client's changes only by an explicit request, and
 * only the release or hand-over that owns it sends one. So a write sent on its node's own
 * session ran if a later read on that same session finds what it did (the node gone, or
 * carrying what it wrote). Anything else tells nothing: on another session, or for a node
 * of another session, the server may have removed the node with its session. The write
 * then counts as not run, which reports the lock lost rather than hide a loss.
 * <p>
 * One instance follows one node through the runs of one release or hand-over, which run
 * one after the other.
 */
final class ZooKeeperLostAnswer {

	/** The session that a write lost its answer on, that of its node; 0 if none did. */
	private final AtomicLong lostOn = new AtomicLong();

	/**
	 * Reads the outcome of a write to a node of session {@code nodeSession} sent on the
	 * handle {@code zooKeeper}: a connection loss is remembered if the write was sent on
	 * the node's own session.
	 */
	void answered(ZooKeeper zooKeeper, KeeperException.Code outcome, long nodeSession) {
		long sessionId = zooKeeper.getSessionId();
		if (outcome == KeeperException.Code.CONNECTIONLOSS && sessionId != 0 && sessionId == nodeSession) {
			this.lostOn.set(sessionId);
		}
	}

	/**
	 * Whether what a read on the handle {@code zooKeeper} found done to the node was done
	 * by a write of this release whose answer was lost.
	 */
	boolean ran(ZooKeeper zooKeeper) {
		return ran(zooKeeper.getSessionId());
	}

	/**
	 * Whether what a read on session {@code sessionId} found done to the node was done by
	 * a write of this release whose answer was lost.
	 */
	boolean ran(long sessionId) {
		long lost = this.lostOn.get();
		return lost != 0 && lost == sessionId;
	}

}
