package io.github.distributelock.zookeeper;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.github.distributelock.core.LockKind;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Conflict;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Gone;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Hold;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Listing;
import io.github.distributelock.zookeeper.ZooKeeperKindQueue.Wait;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a listing of a queue means for one of its nodes, for every kind, without a server:
 * the names as the server makes them, in a shuffled order as it lists them.
 */
class ZooKeeperKindQueueTests {

	private int sequence;

	private final List<String> queue = new ArrayList<>();

	@Test
	void namesCarryKindOwnerSessionAndSequence() {
		String name = ZooKeeperKindNode.prefix(LockKind.permits(3), "owner:1", 0x19c2b7e0005L) + "0000000042";
		ZooKeeperKindNode node = ZooKeeperKindNode.parse(name);
		assertThat(name).matches("permits3-[0-9a-f]{24}-0000019c2b7e0005-0000000042");
		assertThat(node.kind()).isEqualTo(LockKind.permits(3));
		assertThat(node.sequence()).isEqualTo(42);
		assertThat(node.ownedBy(ZooKeeperKindNode.ownerId("owner:1"))).isTrue();
		assertThat(node.ownedBy(ZooKeeperKindNode.ownerId("owner:2"))).isFalse();
		assertThat(ZooKeeperKindNode.parse("_c_123-lock-0000000001").kind()).isNull();
		assertThat(ZooKeeperKindNode.parse("no-sequence").sequence()).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void theLowestFairOrWriteNodeHoldsAndAWaiterWatchesTheNodeJustBeforeIt() {
		String first = add(LockKind.FAIR, "a");
		String second = add(LockKind.FAIR, "b");
		String third = add(LockKind.FAIR, "c");
		assertThat(decide(first, LockKind.FAIR)).isInstanceOf(Hold.class);
		assertThat(decide(second, LockKind.FAIR)).isEqualTo(new Wait(List.of(first), false, true));
		assertThat(decide(third, LockKind.FAIR)).isEqualTo(new Wait(List.of(second), false, false));
	}

	@Test
	void readersShareUntilAWriteNodeAndWaitForTheNearestWriteBeforeThem() {
		String reader = add(LockKind.READ, "a");
		String alsoReader = add(LockKind.READ, "b");
		String writer = add(LockKind.WRITE, "c");
		String lateReader = add(LockKind.READ, "d");
		String secondWriter = add(LockKind.WRITE, "e");
		String lastReader = add(LockKind.READ, "f");
		assertThat(decide(reader, LockKind.READ)).isInstanceOf(Hold.class);
		assertThat(decide(alsoReader, LockKind.READ)).isInstanceOf(Hold.class);
		assertThat(decide(writer, LockKind.WRITE)).isEqualTo(new Wait(List.of(alsoReader), false, false));
		assertThat(decide(lateReader, LockKind.READ)).isEqualTo(new Wait(List.of(writer), false, true));
		assertThat(decide(lastReader, LockKind.READ)).isEqualTo(new Wait(List.of(secondWriter), false, false));
	}

	@Test
	void theLowestNPermitNodesHoldAndAWaiterWatchesTheNBeforeIt() {
		LockKind two = LockKind.permits(2);
		String first = add(two, "a");
		String second = add(two, "b");
		String third = add(two, "c");
		String fourth = add(two, "d");
		assertThat(decide(first, two)).isInstanceOf(Hold.class);
		assertThat(decide(second, two)).isInstanceOf(Hold.class);
		assertThat(decide(third, two)).isEqualTo(new Wait(List.of(first, second), false, true));
		assertThat(decide(fourth, two)).isEqualTo(new Wait(List.of(second, third), false, false));
	}

	@Test
	void aWaiterForManyPermitsWatchesTheWholeQueue() {
		LockKind many = LockKind.permits(ZooKeeperKindQueue.MOST_WATCHED_NODES + 1);
		String last = null;
		for (int i = 0; i <= many.permits(); i++) {
			last = add(many, "o" + i);
		}
		assertThat(decide(last, many)).isEqualTo(new Wait(List.of(), true, false));
	}

	@Test
	void aNodeBeforeOfAnotherFamilyOrPermitCountIsAConflictForTheLaterNodeOnly() {
		String fair = add(LockKind.FAIR, "a");
		String reader = add(LockKind.READ, "b");
		assertThat(decide(fair, LockKind.FAIR)).isInstanceOf(Hold.class);
		assertThat(decide(reader, LockKind.READ)).isEqualTo(new Conflict(LockKind.FAIR, fair));
		this.queue.clear();
		String two = add(LockKind.permits(2), "c");
		String three = add(LockKind.permits(3), "d");
		assertThat(decide(three, LockKind.permits(3))).isEqualTo(new Conflict(LockKind.permits(2), two));
		this.queue.clear();
		String foreign = "_c_0f-lock-" + String.format("%010d", ++this.sequence);
		this.queue.add(foreign);
		String writer = add(LockKind.WRITE, "e");
		assertThat(decide(writer, LockKind.WRITE)).isEqualTo(new Conflict(null, foreign));
	}

	@Test
	void copiesOfANodeFromARetriedRequestAreNamedForDeletionAndIgnored() {
		String holder = add(LockKind.FAIR, "a");
		String copy = add(LockKind.FAIR, "b");
		String ours = ZooKeeperKindNode.prefix(LockKind.FAIR, "b", 7) + String.format("%010d", ++this.sequence);
		this.queue.add(ours);
		Listing listing = ZooKeeperKindQueue.decide(shuffled(), ours, LockKind.FAIR);
		assertThat(listing.duplicates()).containsExactly(copy);
		assertThat(listing.decision()).isEqualTo(new Wait(List.of(holder), false, true));
		assertThat(ZooKeeperKindQueue.decide(List.of(holder), ours, LockKind.FAIR).decision()).isInstanceOf(Gone.class);
	}

	@Test
	void aPlainAttemptWaitsForAFairQueueAndIsRefusedByOthers() {
		String first = add(LockKind.FAIR, "a");
		String last = add(LockKind.FAIR, "b");
		assertThat(ZooKeeperKindQueue.forPlain(shuffled())).isEqualTo(new Wait(List.of(last), false, false));
		assertThat(ZooKeeperKindQueue.forPlain(List.of())).isInstanceOf(Gone.class);
		String reader = ZooKeeperKindNode.prefix(LockKind.READ, "r", 7) + "0000000000";
		assertThat(ZooKeeperKindQueue.forPlain(List.of(first, reader))).isEqualTo(new Conflict(LockKind.READ, reader));
	}

	private String add(LockKind kind, String owner) {
		String name = ZooKeeperKindNode.prefix(kind, owner, 7) + String.format("%010d", ++this.sequence);
		this.queue.add(name);
		return name;
	}

	private ZooKeeperKindQueue.Decision decide(String node, LockKind kind) {
		Listing listing = ZooKeeperKindQueue.decide(shuffled(), node, kind);
		assertThat(listing.duplicates()).isEmpty();
		return listing.decision();
	}

	/** The server lists children in no particular order. */
	private List<String> shuffled() {
		List<String> listed = new ArrayList<>(this.queue);
		Collections.reverse(listed);
		return listed;
	}

}
