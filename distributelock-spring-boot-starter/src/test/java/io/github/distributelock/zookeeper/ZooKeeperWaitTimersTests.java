package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.Deadline;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A wait woken by a watch leaves no timer behind: each wait sets one for its deadline,
 * which comes far later, and under contention thousands of waits a second end early;
 * their cancelled timers, kept until their time, held every one of those waits' futures
 * and watchers until then.
 */
class ZooKeeperWaitTimersTests {

	private static final int WAITS = 200;

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void waitsWokenByADeletionLeaveNoTimers() throws Exception {
		CuratorFramework client = zooKeeper.newClient(Duration.ofSeconds(10));
		this.closeables.add(client::close);
		ZooKeeperSession session = new ZooKeeperSession(client, new ZooKeeperLockPaths("/timers-test"));
		this.closeables.add(session::close);
		String path = "/timers-test/held";
		client.create().creatingParentsIfNeeded().forPath(path);
		List<CompletableFuture<Void>> waits = new ArrayList<>();
		for (int i = 0; i < WAITS; i++) {
			waits.add(ZooKeeperWait.forNode(path).await(session, "held", Deadline.after(Duration.ofSeconds(30))));
		}
		assertThat(session.pendingTimers()).as("timers while the waits wait").isEqualTo(WAITS);
		client.delete().forPath(path);
		await().atMost(BOUND).until(() -> waits.stream().allMatch(CompletableFuture::isDone));
		assertThat(waits).allMatch((wait) -> !wait.isCompletedExceptionally());
		assertThat(session.pendingTimers()).as("timers once every wait was woken").isZero();
	}

}
