package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.zookeeper.ZooKeeperKindReleases.Deleted;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The release of a node that created its queue and believes itself alone in it, on a real
 * server: node and queue go in one transaction, and a member who joined unseen (its watch
 * event still on the way) keeps the queue and its place.
 */
class ZooKeeperKindReleasesTests {

	private static final String QUEUE = "/releases-test/queue";

	/**
	 * A server of its own: the tests count its transactions, which sessions of other
	 * classes ending on a shared server would add to.
	 */
	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = EmbeddedZooKeeperExtension.ofItsOwn();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private CuratorFramework client;

	private ZooKeeperSession session;

	private ZooKeeperKindReleases releases;

	@BeforeEach
	void startSession() throws Exception {
		this.client = zooKeeper.newClient(Duration.ofSeconds(10));
		this.closeables.add(this.client::close);
		this.session = new ZooKeeperSession(this.client, new ZooKeeperLockPaths("/releases-test"));
		this.closeables.add(this.session::close);
		this.releases = new ZooKeeperKindReleases(this.session, new ZooKeeperEmptyQueues(this.session));
		// A persistent parent, which the server's reaper of empty containers leaves
		// alone, so that its transactions are not counted.
		this.client.create()
			.creatingParentsIfNeeded()
			.withMode(CreateMode.CONTAINER)
			.forPath(QUEUE, "distributelock queue".getBytes(StandardCharsets.UTF_8));
		this.closeables.add(() -> this.client.delete().quietly().deletingChildrenIfNeeded().forPath(QUEUE));
	}

	@Test
	void aNodeAloneInItsQueueGoesWithTheQueueInOneTransaction() throws Exception {
		String ours = join("write-ours-");
		long before = ZooKeeperTree.lastZxid(zooKeeper);

		Deleted deleted = this.releases.delete(QUEUE, ours, false, aloneByItsListing(ours)).get(10, TimeUnit.SECONDS);

		assertThat(deleted).isEqualTo(Deleted.QUEUE);
		assertThat(ZooKeeperTree.lastZxid(zooKeeper) - before).as("transactions").isOne();
		assertThat(this.client.checkExists().forPath(QUEUE)).isNull();
	}

	@Test
	void aMemberWhoJoinedUnseenKeepsTheQueueAndItsPlace() throws Exception {
		String ours = join("write-ours-");
		ZooKeeperQueueWatch believedAlone = aloneByItsListing(ours);
		String theirs = join("write-theirs-");
		long before = ZooKeeperTree.lastZxid(zooKeeper);

		Deleted deleted = this.releases.delete(QUEUE, ours, false, believedAlone).get(10, TimeUnit.SECONDS);

		assertThat(deleted).isEqualTo(Deleted.NODE);
		assertThat(ZooKeeperTree.lastZxid(zooKeeper) - before)
			.as("transactions: the failed one of node and queue, then the node's")
			.isEqualTo(2);
		assertThat(this.client.getChildren().forPath(QUEUE)).containsExactly(theirs);
	}

	@Test
	void aMemberWhoseJoiningWasSeenIsLeftWithoutTryingToDeleteTheQueue() throws Exception {
		String ours = join("write-ours-");
		ZooKeeperQueueWatch watch = new ZooKeeperQueueWatch();
		watch.list(this.session, QUEUE);
		assertThat(watch.alone().get(10, TimeUnit.SECONDS)).as("alone before anyone joins").isTrue();
		String theirs = join("write-theirs-");
		await().atMost(Duration.ofSeconds(10)).until(() -> !watch.alone().get(10, TimeUnit.SECONDS));
		long before = ZooKeeperTree.lastZxid(zooKeeper);

		Deleted deleted = this.releases.delete(QUEUE, ours, false, watch).get(10, TimeUnit.SECONDS);

		assertThat(deleted).isEqualTo(Deleted.NODE);
		assertThat(ZooKeeperTree.lastZxid(zooKeeper) - before).as("transactions").isOne();
		assertThat(this.client.getChildren().forPath(QUEUE)).containsExactly(theirs);
	}

	private String join(String prefix) throws Exception {
		String path = this.client.create().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(QUEUE + "/" + prefix);
		return path.substring(QUEUE.length() + 1);
	}

	/** A watch whose listing saw {@code ours} alone, and which never saw an event. */
	private static ZooKeeperQueueWatch aloneByItsListing(String ours) {
		ZooKeeperQueueWatch watch = new ZooKeeperQueueWatch();
		watch.processResult(KeeperException.Code.OK.intValue(), QUEUE, null, List.of(ours));
		return watch;
	}

}
