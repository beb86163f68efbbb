package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.Deadline;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waits do not set a timer each, and a wait woken by a watch leaves nothing behind: a
 * wait's deadline comes far later, and under contention thousands of waits a second end
 * early. A timer set per wait woke the timer thread at nearly every wait; cancelled
 * timers kept until their time held every one of those waits' futures and watchers.
 */
class ZooKeeperWaitTimersTests {

	private static final int WAITS = 200;

	private static final int ROUNDS = 50;

	private static final int WAITERS = 10;

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private CuratorFramework client;

	private ZooKeeperSession session;

	/** The node waited for: one per test, as a test may leave it behind. */
	private String path;

	@BeforeEach
	void openSession(TestInfo test) throws Exception {
		this.path = "/timers-test/" + test.getTestMethod().orElseThrow().getName();
		this.client = zooKeeper.newClient(Duration.ofSeconds(10));
		this.closeables.add(this.client::close);
		this.session = new ZooKeeperSession(this.client, new ZooKeeperLockPaths("/timers-test"));
		this.closeables.add(this.session::close);
	}

	@Test
	void waitsWokenByADeletionSetOneTimerAndLeaveNothingBehind() throws Exception {
		this.client.create().creatingParentsIfNeeded().forPath(this.path);
		List<CompletableFuture<Void>> waits = new ArrayList<>();
		for (int i = 0; i < WAITS; i++) {
			waits.add(waitFor(Duration.ofSeconds(30)));
		}
		assertThat(this.session.pendingTimers()).as("timers while the waits wait").isOne();
		this.client.delete().forPath(this.path);
		await().atMost(BOUND).until(() -> waits.stream().allMatch(CompletableFuture::isDone));
		assertThat(waits).allMatch((wait) -> !wait.isCompletedExceptionally());
		// The one set for the earliest deadline, which finds nothing due when it runs.
		assertThat(this.session.pendingTimers()).as("timers once every wait was woken").isOne();
	}

	@Test
	void waitsOneAfterAnotherOnAContendedKeySetOneTimer() throws Exception {
		int mostTimers = 0;
		for (int round = 0; round < ROUNDS; round++) {
			this.client.create().creatingParentsIfNeeded().forPath(this.path);
			List<CompletableFuture<Void>> waits = new ArrayList<>();
			for (int i = 0; i < WAITERS; i++) {
				waits.add(waitFor(Duration.ofSeconds(30)));
			}
			mostTimers = Math.max(mostTimers, this.session.pendingTimers());
			this.client.delete().forPath(this.path);
			await().atMost(BOUND).until(() -> waits.stream().allMatch(CompletableFuture::isDone));
			assertThat(waits).allMatch((wait) -> !wait.isCompletedExceptionally());
		}
		assertThat(mostTimers).as("most timers at once").isLessThanOrEqualTo(1);
		assertThat(this.session.pendingTimers()).as("timers once every wait was woken").isLessThanOrEqualTo(1);
	}

	@Test
	void closingTheSessionEndsPendingWaitsAndLaterOnes() throws Exception {
		this.client.create().creatingParentsIfNeeded().forPath(this.path);
		CompletableFuture<Void> pending = waitFor(Duration.ofSeconds(60));
		// A later deadline than the pending wait's: it sets no timer of its own.
		CompletableFuture<Void> later = waitFor(Duration.ofSeconds(90));

		this.session.close();

		await().atMost(BOUND).until(() -> pending.isDone() && later.isDone());
		assertThat(waitFor(Duration.ofSeconds(120))).as("a wait after the close").isDone();
		assertThat(List.of(pending, later)).allMatch((wait) -> !wait.isCompletedExceptionally());
	}

	private CompletableFuture<Void> waitFor(Duration timeout) {
		return ZooKeeperWait.forNode(this.path).await(this.session, "held", Deadline.after(timeout));
	}

}
