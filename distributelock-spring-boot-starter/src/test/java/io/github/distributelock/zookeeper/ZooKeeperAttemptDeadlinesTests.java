package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A connection loss that an attempt answers while the client is disconnected, before its
 * deadline, as ZooKeeper's own handle answers a multi-key transaction at its next try to
 * connect: held until the client is connected again, so that the engine's give-back then
 * takes a round trip, or answered at the deadline. The attempts are the test's own, so
 * that their answer comes at a known time; the client and server are real.
 */
class ZooKeeperAttemptDeadlinesTests {

	/** Longer than the outage: the session lives through it. */
	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(30);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void aConnectionLossDuringAnOutageIsPassedOnOnceTheClientIsConnectedAgain() throws Exception {
		TestingServer server = this.closeables.add(EmbeddedZooKeeper.startServer());
		CuratorFramework client = this.closeables
			.add(EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
		ZooKeeperAttemptDeadlines deadlines = deadlines(client);
		server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> !client.getZookeeperClient().isConnected());
		KeeperException lost = new KeeperException.ConnectionLossException();

		CompletableFuture<AcquireResult> outcome = deadlines.bound(
				new Claim("attempt-deadlines.held", "owner").until(Deadline.after(Duration.ofMinutes(1))),
				() -> CompletableFuture.failedFuture(lost));

		assertThat(outcome).as("the outcome while the client is disconnected").isNotDone();
		server.restart();
		assertThat(outcome).as("the outcome once the client is connected again, long before the deadline")
			.failsWithin(Duration.ofSeconds(20))
			.withThrowableOfType(ExecutionException.class)
			.withCause(lost);
	}

	@Test
	void aConnectionLossHeldUntilTheDeadlineIsAnsweredThen() throws Exception {
		TestingServer server = this.closeables.add(EmbeddedZooKeeper.startServer());
		CuratorFramework client = this.closeables
			.add(EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
		ZooKeeperAttemptDeadlines deadlines = deadlines(client);
		server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> !client.getZookeeperClient().isConnected());

		CompletableFuture<AcquireResult> outcome = deadlines.bound(
				new Claim("attempt-deadlines.deadline", "owner").until(Deadline.after(Duration.ofMillis(500))),
				() -> CompletableFuture.failedFuture(new KeeperException.ConnectionLossException()));

		assertThat(outcome).as("the outcome at the deadline, the client still disconnected")
			.failsWithin(Duration.ofSeconds(5))
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(KeeperException.ConnectionLossException.class)
			.withMessageContaining("attempt-deadlines.deadline");
	}

	/** The deadlines of a session of {@code client}, which nothing is taken through. */
	private ZooKeeperAttemptDeadlines deadlines(CuratorFramework client) {
		ZooKeeperSession session = new ZooKeeperSession(client,
				new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT));
		this.closeables.add(session::close);
		ZooKeeperAttemptDeadlines deadlines = new ZooKeeperAttemptDeadlines(session,
				(claim) -> CompletableFuture.completedFuture(false),
				(claims) -> CompletableFuture.completedFuture(List.of()));
		client.getConnectionStateListenable().addListener(deadlines);
		this.closeables.add(() -> client.getConnectionStateListenable().removeListener(deadlines));
		return deadlines;
	}

}
