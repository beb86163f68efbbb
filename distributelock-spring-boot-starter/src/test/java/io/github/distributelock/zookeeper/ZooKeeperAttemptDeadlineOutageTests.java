package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An attempt made while the client cannot reach the server (stopped, the session still
 * alive): Curator's create waits for a connection, up to the client's connection timeout,
 * and the caller's deadline must not wait with it. The caller hears of the connection
 * loss at its deadline, and once the server is back on the same session nothing of the
 * abandoned attempt is left in the store: another client takes the key.
 */
class ZooKeeperAttemptDeadlineOutageTests {

	/**
	 * The caller's client's connection timeout: far above {@link #ANSWER}, so that an
	 * answer that waited for it cannot pass for one that did not.
	 */
	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(30);

	/** Longer than the outage: the caller's session lives through it. */
	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(30);

	/** The caller's wait time. */
	private static final Duration WAIT = Duration.ofMillis(800);

	/** How long the caller may take to answer, with room for a loaded machine. */
	private static final Duration ANSWER = Duration.ofSeconds(6);

	/**
	 * How long past its deadline a call may answer: one round trip, with room for a
	 * loaded machine, and far below the connection timeout.
	 */
	private static final Duration ROUND_TRIP = Duration.ofSeconds(2);

	/** How long another client may take to get the key once the server is back. */
	private static final Duration FREE_AGAIN = Duration.ofSeconds(20);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/**
	 * A caller of each kind, on a key free or held by another client, whose attempt is
	 * made during the outage.
	 */
	@ParameterizedTest(name = "{0}, held by another: {1}")
	@CsvSource({ "exclusive, false", "exclusive, true", "fair, false", "fair, true", "write, false", "write, true",
			"read, false", "read, true", "permits, false", "permits, true" })
	void anAttemptDuringAnOutageAnswersAtItsDeadlineAndLeavesNothingBehind(String kind, boolean held) throws Exception {
		TestingServer server = this.closeables.add(EmbeddedZooKeeper.startServer());
		String key = "attempt-deadline.outage." + kind + "." + held;
		CuratorFramework otherClient = this.closeables
			.add(EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
		DefaultDistributeLock other = this.closeables
			.add(new DefaultDistributeLock(this.closeables.add(new ZooKeeperLockBackend(otherClient)),
					Duration.ofSeconds(30), false, LockEventListener.NONE, null));
		CuratorFramework callerClient = callerClient(server.getConnectString());
		DefaultDistributeLock caller = this.closeables
			.add(new DefaultDistributeLock(this.closeables.add(new ZooKeeperLockBackend(callerClient)),
					Duration.ofSeconds(30), false, LockEventListener.NONE, null));
		LockHandle holder = (held)
				? other.tryAcquire(exclusive(key, kind).withWaitTime(Duration.ofSeconds(10))).orElseThrow() : null;
		long session = callerClient.getZookeeperClient().getZooKeeper().getSessionId();
		server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> !callerClient.getZookeeperClient().isConnected());

		CompletableFuture<Optional<LockHandle>> call = caller.tryAcquireAsync(request(key, kind).withWaitTime(WAIT));

		assertThat(call).as("the answer at the deadline, without waiting for the connection")
			.failsWithin(ANSWER)
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(DistributeLockException.class)
			.withMessageContaining(key)
			.havingCause()
			.isInstanceOf(KeeperException.ConnectionLossException.class);
		server.restart();
		await().atMost(Duration.ofSeconds(20)).until(() -> callerClient.getZookeeperClient().isConnected());
		assertThat(callerClient.getZookeeperClient().getZooKeeper().getSessionId()).as("the caller's session")
			.isEqualTo(session);
		if (holder != null) {
			holder.close();
		}
		Optional<LockHandle> taken = await().atMost(FREE_AGAIN.multipliedBy(2))
			.ignoreExceptions()
			.until(() -> other.tryAcquire(exclusive(key, kind).withWaitTime(FREE_AGAIN)), Optional::isPresent);
		taken.get().close();
		assertThat(caller.heldLocks()).as("the locks the caller's instance holds").isEmpty();
	}

	/**
	 * A multi-key call whose keys are free, or one of which another client held before
	 * the outage, made during the outage: its attempt of every key is bounded by the
	 * caller's deadline as a single key's is, and nothing of it is left once the server
	 * is back on the same session. ZooKeeper's client fails a request queued while it is
	 * disconnected at its next try to connect (one to two seconds apart): a wait of 800
	 * ms may end before that, and one of 3 s ends after it, when the engine gives the
	 * keys back before it attempts again.
	 */
	@ParameterizedTest(name = "held by another: {0}, wait: {1} ms")
	@CsvSource({ "false, 800", "true, 800", "false, 3000", "true, 3000" })
	void aMultiKeyAttemptDuringAnOutageAnswersAtItsDeadlineAndLeavesNothingBehind(boolean held, long waitMillis)
			throws Exception {
		Duration wait = Duration.ofMillis(waitMillis);
		TestingServer server = this.closeables.add(EmbeddedZooKeeper.startServer());
		String prefix = "attempt-deadline.outage.multi-key." + held + "." + waitMillis;
		LockRequest[] keys = { LockRequest.of(prefix + ".a"), LockRequest.of(prefix + ".b"),
				LockRequest.of(prefix + ".c") };
		CuratorFramework otherClient = this.closeables
			.add(EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
		DefaultDistributeLock other = this.closeables
			.add(new DefaultDistributeLock(this.closeables.add(new ZooKeeperLockBackend(otherClient)),
					Duration.ofSeconds(30), false, LockEventListener.NONE, null));
		CuratorFramework callerClient = callerClient(server.getConnectString());
		DefaultDistributeLock caller = this.closeables
			.add(new DefaultDistributeLock(this.closeables.add(new ZooKeeperLockBackend(callerClient)),
					Duration.ofSeconds(30), false, LockEventListener.NONE, null));
		LockHandle holder = (held) ? other.tryAcquire(keys[1].withWaitTime(Duration.ofSeconds(10))).orElseThrow()
				: null;
		long session = callerClient.getZookeeperClient().getZooKeeper().getSessionId();
		server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> !callerClient.getZookeeperClient().isConnected());

		long start = System.nanoTime();
		CompletableFuture<Optional<LockHandle>> call = caller.tryAcquireAsync(LockRequest.all(keys).withWaitTime(wait));
		CompletableFuture<Duration> answeredAfter = call
			.handle((taken, failure) -> Duration.ofNanos(System.nanoTime() - start));

		assertThat(call).as("the answer at the deadline, without waiting for the connection")
			.failsWithin(ANSWER)
			.withThrowableOfType(ExecutionException.class)
			.havingCause()
			.isInstanceOf(DistributeLockException.class)
			.withMessageContaining(prefix + ".a")
			.havingCause()
			.isInstanceOf(KeeperException.ConnectionLossException.class);
		assertThat(answeredAfter.join()).as("the time the call took to answer").isLessThan(wait.plus(ROUND_TRIP));
		server.restart();
		await().atMost(Duration.ofSeconds(20)).until(() -> callerClient.getZookeeperClient().isConnected());
		assertThat(callerClient.getZookeeperClient().getZooKeeper().getSessionId()).as("the caller's session")
			.isEqualTo(session);
		if (holder != null) {
			holder.close();
		}
		Optional<LockHandle> taken = await().atMost(FREE_AGAIN.multipliedBy(2))
			.ignoreExceptions()
			.until(() -> other.tryAcquire(LockRequest.all(keys).withWaitTime(FREE_AGAIN)), Optional::isPresent);
		taken.get().close();
		assertThat(caller.heldLocks()).as("the locks the caller's instance holds").isEmpty();
	}

	/**
	 * A call with no wait time made while the client connects for the first time, as at
	 * an application's start: the connection is part of its first round trip, and the
	 * call gets the lock once the server answers, as before deadlines bounded attempts.
	 */
	@Test
	void aCallBeforeTheClientsFirstConnectionWaitsForIt() throws Exception {
		TestingServer server = this.closeables.add(EmbeddedZooKeeper.startServer());
		server.stop();
		CuratorFramework client = startedClient(server.getConnectString());
		DefaultDistributeLock caller = this.closeables
			.add(new DefaultDistributeLock(this.closeables.add(new ZooKeeperLockBackend(client)),
					Duration.ofSeconds(30), false, LockEventListener.NONE, null));

		CompletableFuture<Optional<LockHandle>> call = caller
			.tryAcquireAsync(LockRequest.of("attempt-deadline.first-connection").withWaitTime(Duration.ZERO));
		server.restart();

		assertThat(call).as("the call, once the client is connected")
			.succeedsWithin(Duration.ofSeconds(20))
			.satisfies((handle) -> assertThat(handle).isPresent());
		call.get().get().close();
	}

	/** A request of {@code kind}. */
	private static LockRequest request(String key, String kind) {
		return switch (kind) {
			case "exclusive" -> LockRequest.of(key);
			case "fair" -> LockRequest.of(key).withFair(true);
			case "write" -> LockRequest.of(key).withMode(LockMode.WRITE);
			case "read" -> LockRequest.of(key).withMode(LockMode.READ);
			default -> LockRequest.of(key).withPermits(1);
		};
	}

	/**
	 * A request of the family of {@code kind} that no other claim of the key shares, so
	 * that anything the caller left in the store keeps it out.
	 */
	private static LockRequest exclusive(String key, String kind) {
		return ("read".equals(kind)) ? LockRequest.of(key).withMode(LockMode.WRITE) : request(key, kind);
	}

	/**
	 * A started client, connected, with a connection timeout of
	 * {@link #CONNECTION_TIMEOUT}, that retries a request once.
	 */
	private CuratorFramework callerClient(String connectString) throws Exception {
		CuratorFramework client = startedClient(connectString);
		assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
		return client;
	}

	/**
	 * A started client, not waiting for a connection, with a connection timeout of
	 * {@link #CONNECTION_TIMEOUT}, that retries a request once.
	 */
	private CuratorFramework startedClient(String connectString) {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
			.connectionTimeoutMs((int) CONNECTION_TIMEOUT.toMillis())
			.retryPolicy(new ExponentialBackoffRetry(100, 1))
			.build();
		client.start();
		return this.closeables.add(client);
	}

}
