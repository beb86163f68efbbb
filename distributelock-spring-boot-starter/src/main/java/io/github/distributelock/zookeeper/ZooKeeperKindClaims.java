package io.github.distributelock.zookeeper;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributelock.core.LockBackend.Claim;
import org.jspecify.annotations.Nullable;

/**
 * The queue node of each claim this backend holds or waits with, by key and owner: what
 * lets a claim's later attempts use its node instead of creating a second one, and its
 * release delete it by name. A claim enters at its node's creation and leaves at its
 * release (or when its node is found gone).
 */
final class ZooKeeperKindClaims {

	/**
	 * How many keys {@link #queueSeen} remembers, the least recently used forgotten
	 * first.
	 */
	private static final int SEEN_KEYS = 1024;

	private final ConcurrentHashMap<String, ConcurrentHashMap<String, QueuedNode>> nodes = new ConcurrentHashMap<>();

	private final Map<String, Boolean> seenQueued = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {

		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
			return size() > SEEN_KEYS;
		}

	});

	@Nullable QueuedNode node(Claim claim) {
		ConcurrentHashMap<String, QueuedNode> owners = this.nodes.get(claim.key());
		return (owners != null) ? owners.get(claim.owner()) : null;
	}

	/**
	 * Whether the key's queue likely exists: a claim of this backend has a node in it, or
	 * this backend's last look found the queue with others in it.
	 */
	boolean queueLikely(String key) {
		return this.nodes.containsKey(key) || this.seenQueued.containsKey(key);
	}

	/**
	 * Records whether the key's queue exists with others in it, as a request just saw.
	 */
	void queueSeen(String key, boolean queued) {
		if (queued) {
			this.seenQueued.put(key, Boolean.TRUE);
		}
		else {
			this.seenQueued.remove(key);
		}
	}

	void remember(Claim claim, QueuedNode node) {
		this.nodes.compute(claim.key(), (key, owners) -> {
			ConcurrentHashMap<String, QueuedNode> remembered = (owners != null) ? owners : new ConcurrentHashMap<>();
			remembered.put(claim.owner(), node);
			return remembered;
		});
	}

	/** Whether another claim of this backend has a node after {@code node}. */
	boolean hasNodeAfter(Claim claim, QueuedNode node) {
		ConcurrentHashMap<String, QueuedNode> owners = this.nodes.get(claim.key());
		return owners != null && owners.values().stream().anyMatch((other) -> other.sequence > node.sequence);
	}

	/** Forgets the claim's node, whichever it is; returns it. */
	@Nullable QueuedNode forget(Claim claim) {
		return remove(claim, null);
	}

	/** Forgets the claim's node if it is still {@code node}. */
	void forgetIf(Claim claim, QueuedNode node) {
		remove(claim, node);
	}

	private @Nullable QueuedNode remove(Claim claim, @Nullable QueuedNode expected) {
		QueuedNode[] forgotten = new QueuedNode[1];
		this.nodes.computeIfPresent(claim.key(), (key, owners) -> {
			if (expected == null) {
				forgotten[0] = owners.remove(claim.owner());
			}
			else if (owners.remove(claim.owner(), expected)) {
				forgotten[0] = expected;
			}
			return (owners.isEmpty()) ? null : owners;
		});
		return forgotten[0];
	}

	/**
	 * A claim's node in a queue.
	 */
	static final class QueuedNode {

		final String name;

		/** The node's {@code czxid}: the fencing token once it holds. */
		final long token;

		/** The session of the node, which it lives as long as. */
		final long sessionId;

		final long sequence;

		/**
		 * Whether a watch saw the deletion that lets the node in: no node can come before
		 * it since, as sequence numbers only grow.
		 */
		volatile boolean admitted;

		/**
		 * Whether an attempt answered that the node holds the lock: its release is then a
		 * holder's, whose outcome the caller waits for, and not a waiter's leaving the
		 * queue, which must not keep its caller past the deadline.
		 */
		volatile boolean held;

		/**
		 * The node just before this fair one in its queue, as the last listing that left
		 * it waiting saw it, or {@code null}: once that node is released while it holds,
		 * this one holds.
		 */
		volatile @Nullable String after;

		/**
		 * What tells whether the node is still alone in the queue it created, or
		 * {@code null} for a node that joined a queue.
		 */
		final @Nullable ZooKeeperQueueWatch queueWatch;

		QueuedNode(String name, long token, long sessionId, @Nullable ZooKeeperQueueWatch queueWatch) {
			this.name = name;
			this.token = token;
			this.sessionId = sessionId;
			this.queueWatch = queueWatch;
			this.sequence = ZooKeeperKindNode.parse(name).sequence();
		}

	}

}
