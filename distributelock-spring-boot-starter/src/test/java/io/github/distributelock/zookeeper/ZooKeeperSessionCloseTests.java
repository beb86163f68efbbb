package io.github.distributelock.zookeeper;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.Deadline;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A request retried after a dropped connection waits for the connection on the session's
 * timer; closing the backend ends that wait, as it ends the waits for a release, instead
 * of dropping its timer and leaving the request unanswered for good. What runs on that
 * timer when the backend closes (the engine's work for a waiter whose wait ended, maybe a
 * release that must reach the store) runs to its end, not interrupted.
 */
class ZooKeeperSessionCloseTests {

	/** Far beyond {@link #BOUND}: only the close can end the wait within the bound. */
	private static final int CONNECTION_TIMEOUT_MILLIS = 60_000;

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private ZooKeeperSession session;

	@BeforeEach
	void openSessionThatNeverConnects() throws Exception {
		// A port nobody listens on: the client never connects.
		int port;
		try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = free.getLocalPort();
		}
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString("127.0.0.1:" + port)
			.connectionTimeoutMs(CONNECTION_TIMEOUT_MILLIS)
			.sessionTimeoutMs(CONNECTION_TIMEOUT_MILLIS)
			.retryPolicy(new RetryOneTime(100))
			.build();
		client.start();
		this.closeables.add(client::close);
		this.session = new ZooKeeperSession(client, new ZooKeeperLockPaths("/close-test"));
		this.closeables.add(this.session::close);
	}

	@Test
	void closingEndsARequestWaitingForTheConnection() {
		CompletableFuture<Boolean> retried = this.session.retriedOnReconnection(ZooKeeperSessionCloseTests::lost);
		assertThat(retried).as("waiting for the connection").isNotDone();

		this.session.close();

		await().atMost(BOUND).until(retried::isDone);
		assertThat(retried).isCompletedExceptionally();
		assertThat(retried.handle((result, failure) -> failure).join()).hasMessageContaining("closed");
	}

	@Test
	void aRequestRetriedAfterTheCloseFailsAtOnce() {
		this.session.close();

		CompletableFuture<Boolean> retried = this.session.retriedOnReconnection(ZooKeeperSessionCloseTests::lost);

		assertThat(retried).isCompletedExceptionally();
		assertThat(retried.handle((result, failure) -> failure).join()).hasMessageContaining("closed");
	}

	@Test
	void closingLetsTheWorkOfAnEndedWaitFinishWithoutAnInterrupt() throws Exception {
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch closeReturned = new CountDownLatch(1);
		CompletableFuture<String> ranOn = new CompletableFuture<>();
		CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
		CompletableFuture<Void> wait = new CompletableFuture<>();
		// What the engine runs for the waiter when the timer ends its wait, still running
		// while the backend closes.
		wait.thenRun(() -> {
			ranOn.complete(Thread.currentThread().getName());
			running.countDown();
			try {
				closeReturned.await(BOUND.toMillis(), TimeUnit.MILLISECONDS);
				interrupted.complete(Thread.currentThread().isInterrupted());
			}
			catch (InterruptedException ex) {
				interrupted.complete(true);
			}
		});
		this.session.deadlines().expireAt(wait, Deadline.after(Duration.ofMillis(1)));
		assertThat(running.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		assertThat(ranOn.join()).isEqualTo("distributelock-zookeeper-timeouts");

		this.session.close();
		closeReturned.countDown();

		assertThat(interrupted.get(BOUND.toMillis(), TimeUnit.MILLISECONDS)).as("interrupted").isFalse();
	}

	@Test
	void closingDropsTheTimersSetForLater() {
		CompletableFuture<Void> wait = new CompletableFuture<>();
		this.session.deadlines().expireAt(wait, Deadline.after(Duration.ofHours(1)));
		assertThat(this.session.pendingTimers()).isEqualTo(1);

		this.session.close();

		assertThat(this.session.pendingTimers()).isZero();
		assertThat(wait).isDone();
	}

	private static CompletableFuture<Boolean> lost() {
		return CompletableFuture.failedFuture(new KeeperException.ConnectionLossException());
	}

}
