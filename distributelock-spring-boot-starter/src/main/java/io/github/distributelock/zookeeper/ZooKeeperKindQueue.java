package io.github.distributelock.zookeeper;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.github.distributelock.core.LockKind;
import org.jspecify.annotations.Nullable;

/**
 * What one listing of a key's queue means for one of its nodes: whether it holds the
 * lock, which nodes it must watch while it waits, or whether the key is held as another
 * kind of lock. Nodes are ordered by their sequence number, so by arrival.
 * <ul>
 * <li>fair and write: the lowest node holds; a waiter watches the node just before its
 * own, as Curator's {@code LockInternals} does, so a release wakes one waiter.</li>
 * <li>read: holds when no write node is before it; a waiter watches the nearest write
 * node before it, so a waiting writer keeps later readers out.</li>
 * <li>permits(N): the lowest N nodes hold; a waiter watches the N nodes just before it
 * (the deletion of an earlier node shifts that window without changing who is in it, so
 * no release is missed), or every change of the queue when N is large.</li>
 * </ul>
 * A node before this one of another family, or with another number of permits, is a
 * conflict: the lowest node decides the kind of the key, so of two conflicting requests
 * the later one gives way.
 */
final class ZooKeeperKindQueue {

	/** The most nodes a permit waiter watches one by one, rather than the whole queue. */
	static final int MOST_WATCHED_NODES = 16;

	private ZooKeeperKindQueue() {
	}

	/**
	 * Reads a listing for the node named {@code ours}, of kind {@code kind}; other nodes
	 * with its prefix are copies of it made by a retried request, which the caller
	 * deletes.
	 */
	static Listing decide(List<String> children, String ours, LockKind kind) {
		ZooKeeperKindNode self = ZooKeeperKindNode.parse(ours);
		List<ZooKeeperKindNode> queue = new ArrayList<>(children.size());
		List<String> duplicates = new ArrayList<>();
		boolean present = false;
		for (String child : children) {
			ZooKeeperKindNode node = ZooKeeperKindNode.parse(child);
			if (child.equals(ours)) {
				present = true;
				queue.add(node);
			}
			else if (node.prefix().equals(self.prefix())) {
				duplicates.add(child);
			}
			else {
				queue.add(node);
			}
		}
		if (!present) {
			return new Listing(new Gone(), duplicates);
		}
		queue.sort(Comparator.comparingLong(ZooKeeperKindNode::sequence));
		int index = queue.indexOf(self);
		List<ZooKeeperKindNode> ahead = queue.subList(0, index);
		for (ZooKeeperKindNode node : ahead) {
			if (node.kind() == null || !ZooKeeperKindNode.sameFamily(node.kind(), kind)) {
				return new Listing(new Conflict(node.kind(), node.name()), duplicates);
			}
		}
		return new Listing(position(ahead, kind), duplicates);
	}

	private static Decision position(List<ZooKeeperKindNode> ahead, LockKind kind) {
		int index = ahead.size();
		switch (kind.type()) {
			case READ -> {
				List<String> writers = ahead.stream()
					.filter((node) -> node.kind() == LockKind.WRITE)
					.map(ZooKeeperKindNode::name)
					.toList();
				return (writers.isEmpty()) ? new Hold()
						: new Wait(List.of(writers.get(writers.size() - 1)), false, writers.size() == 1);
			}
			case PERMITS -> {
				int permits = kind.permits();
				if (index < permits) {
					return new Hold();
				}
				if (permits > MOST_WATCHED_NODES) {
					return new Wait(List.of(), true, false);
				}
				List<String> window = ahead.subList(index - permits, index)
					.stream()
					.map(ZooKeeperKindNode::name)
					.toList();
				return new Wait(window, false, index == permits);
			}
			default -> {
				return (index == 0) ? new Hold() : new Wait(List.of(ahead.get(index - 1).name()), false, index == 1);
			}
		}
	}

	/**
	 * Reads a listing for a plain exclusive attempt that found the key's queue: it waits
	 * for the queue to end if the queue is of fair locks, and is refused otherwise; it
	 * watches the last node, whose deletion may leave the queue empty.
	 */
	static Decision forPlain(List<String> children) {
		if (children.isEmpty()) {
			return new Gone();
		}
		List<ZooKeeperKindNode> queue = new ArrayList<>(children.stream().map(ZooKeeperKindNode::parse).toList());
		queue.sort(Comparator.comparingLong(ZooKeeperKindNode::sequence));
		ZooKeeperKindNode lowest = queue.get(0);
		if (lowest.kind() == null || !ZooKeeperKindNode.sameFamily(lowest.kind(), LockKind.EXCLUSIVE)) {
			return new Conflict(lowest.kind(), lowest.name());
		}
		return new Wait(List.of(queue.get(queue.size() - 1).name()), false, false);
	}

	/**
	 * A listing read for one node.
	 *
	 * @param decision what it means for the node
	 * @param duplicates other nodes of the same request, to delete
	 */
	record Listing(Decision decision, List<String> duplicates) {
	}

	/** What a listing means for one node. */
	sealed interface Decision permits Hold, Wait, Conflict, Gone {

	}

	/** The node holds the lock. */
	record Hold() implements Decision {
	}

	/**
	 * The node waits.
	 *
	 * @param watched the nodes whose deletion may let it in
	 * @param watchQueue whether to watch every change of the queue instead
	 * @param deletionAdmits whether the deletion of any watched node lets it in, so that
	 * no listing is needed after it
	 */
	record Wait(List<String> watched, boolean watchQueue, boolean deletionAdmits) implements Decision {
	}

	/**
	 * The key is held, or queued for, as another kind.
	 *
	 * @param heldAs the kind of the lowest conflicting node, or {@code null} if it is not
	 * a node of this library
	 * @param node its name
	 */
	record Conflict(@Nullable LockKind heldAs, String node) implements Decision {
	}

	/** The node is not in the queue (any more), or the queue is empty. */
	record Gone() implements Decision {
	}

}
