package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockKind;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.DefaultZookeeperFactory;
import org.apache.curator.utils.ZookeeperFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Fair, read/write and permit claims while their client cannot reach the server, on a
 * real server of the test's own that it stops and starts again.
 */
class ZooKeeperKindOutageTests {

	/**
	 * The waiter's client's connection timeout: how long a request that lost its
	 * connection waits for the client to be connected again before it is sent again, and
	 * what each try of a Curator request waits for a connection; far longer than it takes
	 * the server to start again.
	 */
	private static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(10);

	/** Longer than the outage: no session ends by itself during a test. */
	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * The connection timeout of a client whose answers during an outage must not wait for
	 * it: three times {@link #OUTAGE_ANSWER}, so that an answer that waited for the
	 * reconnection cannot pass for one that did not.
	 */
	private static final Duration LONG_CONNECTION_TIMEOUT = Duration.ofSeconds(30);

	/**
	 * How long an answer given during an outage may take, with room for a loaded machine.
	 */
	private static final Duration OUTAGE_ANSWER = Duration.ofSeconds(10);

	/**
	 * The wait time of a queued caller whose deadline passes during an outage: shorter
	 * than the engine's wait slice of a queued claim (3 s), so its wait ends at the
	 * deadline and not with an attempt (which, made during the outage, fails at the
	 * deadline with the connection loss: the caller would hear of a store failure, not of
	 * a busy key), and as long as that allows, to stop the server before the deadline on
	 * a loaded machine.
	 */
	private static final Duration SHORT_WAIT = Duration.ofMillis(2_900);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/**
	 * A claim whose node lives on a session its client gave up, whose next attempt comes
	 * while the client cannot reach the server: the delete of that node waits for the
	 * client to be connected again before it is sent again, and the attempt must not wait
	 * with it (up to a connection timeout, then the creation of its new node, a whole
	 * store call more) as the engine does not bound an attempt by the caller's deadline.
	 * It answers the key held, before the connection timeout, and waits for the delete,
	 * which goes on once the server is back; the claim then queues on its new session and
	 * nothing is left in the queue after its release.
	 */
	@Test
	void anAttemptLeavingItsNodeOfAGivenUpSessionDuringAnOutageAnswersWithoutWaitingForTheReconnection()
			throws Exception {
		TestingServer server = this.closeables.add(EmbeddedZooKeeper.startServer());
		String key = "given-up-session.outage";
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		AtomicLong givenUpSession = new AtomicLong();
		CuratorFramework waiterClient = givenUpSessionKeepingClient(server.getConnectString(), givenUpSession);
		CuratorFramework holderClient = this.closeables
			.add(EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
		ZooKeeperLockBackend holder = this.closeables.add(new ZooKeeperLockBackend(holderClient));
		ZooKeeperLockBackend waiter = this.closeables.add(new ZooKeeperLockBackend(waiterClient));
		Claim held = new Claim(key, "holder", null, LockKind.FAIR);
		Claim waiting = new Claim(key, "waiter", null, LockKind.FAIR);
		assertThat(attempt(holder, held).acquired()).isTrue();
		assertThat(attempt(waiter, waiting).acquired()).isFalse();
		GivenUpSessionKeeper.giveUpSession(waiterClient, givenUpSession);
		server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> !waiterClient.getZookeeperClient().isConnected());

		CompletableFuture<AcquireResult> attempt = waiter.tryAcquire(waiting, SESSION_TIMEOUT).toCompletableFuture();

		assertThat(attempt).as("the attempt's answer, without waiting for the reconnection")
			.succeedsWithin(CONNECTION_TIMEOUT)
			.satisfies((answer) -> assertThat(answer.acquired()).as("held").isFalse());
		server.restart();
		// The node of the given-up session deleted once the client is connected.
		assertOnlyHolderLeftIn(holderClient, queue, LockKind.FAIR);
		assertThat(waiter.awaitRelease(waiting, attempt.get(), Deadline.after(Duration.ofSeconds(60))))
			.as("the wait that the delete ends")
			.succeedsWithin(Duration.ofSeconds(20));
		assertThat(holder.release(held).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(attempt(waiter, waiting).acquired()).as("the free key").isTrue();
		List<String> nodes = ZooKeeperTree.children(holderClient, queue);
		assertThat(nodes).as("the claim's node on its new session alone").hasSize(1);
		assertThat(waiter.release(waiting).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(ZooKeeperTree.children(holderClient, queue)).as("nodes left").isEmpty());
	}

	/**
	 * A claim whose first attempt creates the key's queue while its client has no session
	 * yet (it is connecting, here to a server that starts again): the transaction goes
	 * once the client has opened one, and its node lives on that session, the current
	 * one. The attempt holds by it, as the key's first claim. It took the node for one of
	 * a session given up, as the session was not known when the transaction was sent,
	 * deleted it and queued again, behind a claim of another instance that came later.
	 */
	@Test
	void aClaimThatCreatedTheQueueBeforeItsClientHadASessionHoldsByItsNode() throws Exception {
		TestingServer server = this.closeables.add(EmbeddedZooKeeper.startServer());
		String key = "queue-created-before-a-session";
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		CuratorFramework otherClient = this.closeables
			.add(EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
		ZooKeeperLockBackend other = this.closeables.add(new ZooKeeperLockBackend(otherClient));
		// Keeps the root, which the server would remove empty, through the outage.
		assertThat(attempt(other, new Claim(key + ".elsewhere", "other", null, LockKind.EXCLUSIVE)).acquired())
			.isTrue();
		CompletableFuture<Runnable> heldAnswer = new CompletableFuture<>();
		server.stop();
		CuratorFramework client = queueAnswerHoldingClient(server.getConnectString(), queue, heldAnswer);
		ZooKeeperLockBackend claiming = this.closeables.add(new ZooKeeperLockBackend(client));
		Claim first = new Claim(key, "first", null, LockKind.FAIR);

		CompletableFuture<AcquireResult> attempt = claiming.tryAcquire(first, SESSION_TIMEOUT).toCompletableFuture();
		server.restart();
		Runnable answer = heldAnswer.get(20, TimeUnit.SECONDS);
		assertThat(attempt(other, new Claim(key, "later", null, LockKind.FAIR)).acquired())
			.as("a claim of another instance that came later")
			.isFalse();
		answer.run();

		assertThat(attempt).succeedsWithin(Duration.ofSeconds(10))
			.satisfies((taken) -> assertThat(taken.acquired()).as("held by the key's first claim").isTrue());
		assertThat(ZooKeeperTree.children(otherClient, queue)).as("the nodes of both claims").hasSize(2);
		assertThat(claiming.release(first).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
	}

	/**
	 * A claim of one kind that meets the key held as another kind, and whose delete of
	 * its own node loses its answer with the connection: the attempt fails with the
	 * conflict while the delete waits for the client to be connected again (up to a
	 * connection timeout, which the attempt waited for before), and the delete goes on
	 * alone once the server is back, so nothing of the claim stays in the queue.
	 */
	@Test
	void aConflictingAttemptDuringAnOutageFailsWithoutWaitingForTheDeleteOfItsNode() throws Exception {
		TestingServer server = this.closeables.add(EmbeddedZooKeeper.startServer());
		String key = "conflict.outage";
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		CuratorFramework holderClient = this.closeables
			.add(EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
		ZooKeeperLockBackend holder = this.closeables.add(new ZooKeeperLockBackend(holderClient));
		CompletableFuture<Runnable> heldListing = new CompletableFuture<>();
		CuratorFramework readerClient = connectedClient(server.getConnectString(),
				QueueAnswerHolding.listings(queue, heldListing), LONG_CONNECTION_TIMEOUT);
		ZooKeeperLockBackend reader = this.closeables.add(new ZooKeeperLockBackend(readerClient));
		assertThat(attempt(holder, new Claim(key, "holder", null, LockKind.FAIR)).acquired()).isTrue();
		CompletableFuture<AcquireResult> attempt = reader
			.tryAcquire(new Claim(key, "reader", null, LockKind.READ), SESSION_TIMEOUT)
			.toCompletableFuture();
		Runnable listing = heldListing.get(10, TimeUnit.SECONDS);
		server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> !readerClient.getZookeeperClient().isConnected());

		listing.run();

		assertThat(attempt.handle((answer, failure) -> failure))
			.as("the conflict, without waiting for the reconnection")
			.succeedsWithin(OUTAGE_ANSWER)
			.isInstanceOf(LockKindConflictException.class);
		server.restart();
		assertOnlyHolderLeftIn(holderClient, queue, LockKind.FAIR);
	}

	/**
	 * A fair, write, read or permit caller queued behind a holder whose wait time ends
	 * while its client cannot reach the server: the caller hears that it did not get the
	 * lock at its deadline, not once its node's delete, which lost its answer with the
	 * connection, has been sent again after the reconnection (up to a connection timeout
	 * past the deadline). The delete goes on alone once the server is back, and nothing
	 * of the caller stays in the queue.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "fair", "write", "read", "permits" })
	void aQueuedCallerWhoseDeadlinePassesDuringAnOutageAnswersWithoutWaitingForTheLeave(String kind) throws Exception {
		TestingServer server = this.closeables.add(EmbeddedZooKeeper.startServer());
		String key = "deadline.outage." + kind;
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		CuratorFramework holderClient = this.closeables
			.add(EmbeddedZooKeeper.newClient(server.getConnectString(), SESSION_TIMEOUT));
		ZooKeeperLockBackend holder = this.closeables.add(new ZooKeeperLockBackend(holderClient));
		CuratorFramework waiterClient = connectedClient(server.getConnectString(), new DefaultZookeeperFactory(),
				LONG_CONNECTION_TIMEOUT);
		DefaultDistributeLock waiter = this.closeables
			.add(new DefaultDistributeLock(this.closeables.add(new ZooKeeperLockBackend(waiterClient)),
					Duration.ofSeconds(30), false, LockEventListener.NONE, null));
		LockKind heldKind = LockKind.of(ZooKeeperKindSessionTests.holding(key, kind));
		Claim held = new Claim(key, "holder", null, heldKind);
		assertThat(attempt(holder, held).acquired()).isTrue();
		CompletableFuture<Optional<LockHandle>> call = waiter
			.tryAcquireAsync(ZooKeeperKindSessionTests.waiting(key, kind).withWaitTime(SHORT_WAIT));
		await().atMost(Duration.ofSeconds(10)).until(() -> ZooKeeperTree.children(holderClient, queue).size() == 2);
		server.stop();
		await().atMost(Duration.ofSeconds(10)).until(() -> !waiterClient.getZookeeperClient().isConnected());
		assumeThat(call).as("the caller still waiting when its client was disconnected").isNotDone();

		assertThat(call).as("the answer at the deadline, without waiting for the reconnection")
			.succeedsWithin(OUTAGE_ANSWER)
			.isEqualTo(Optional.empty());
		server.restart();
		assertOnlyHolderLeftIn(holderClient, queue, heldKind);
		assertThat(holder.release(held).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
	}

	/**
	 * Waits until the queue holds the node of the claim of owner {@code holder} alone, on
	 * the current session of {@code holderClient}.
	 */
	private static void assertOnlyHolderLeftIn(CuratorFramework holderClient, String queue, LockKind kind) {
		await().atMost(Duration.ofSeconds(40))
			.untilAsserted(() -> assertThat(ZooKeeperTree.children(holderClient, queue))
				.as("the holder's node alone, once the client is connected")
				.singleElement()
				.satisfies((node) -> assertThat(node).startsWith(ZooKeeperKindNode.prefix(kind, "holder",
						holderClient.getZookeeperClient().getZooKeeper().getSessionId()))));
	}

	/**
	 * A started client, not waiting for a connection, whose handles hold the answer of
	 * the transaction that creates {@code queue} until the test runs it.
	 */
	private CuratorFramework queueAnswerHoldingClient(String connectString, String queue,
			CompletableFuture<Runnable> heldAnswer) {
		return startedClient(connectString, QueueAnswerHolding.handles(queue, heldAnswer), CONNECTION_TIMEOUT);
	}

	/**
	 * A client with a connection timeout of {@link #CONNECTION_TIMEOUT} that closes no
	 * handle of {@code givenUpSession} on the server, which keeps that session through
	 * the test.
	 */
	private CuratorFramework givenUpSessionKeepingClient(String connectString, AtomicLong givenUpSession)
			throws Exception {
		return connectedClient(connectString,
				(address, sessionTimeout, watcher, canBeReadOnly) -> new GivenUpSessionKeeper(address, sessionTimeout,
						watcher, canBeReadOnly, givenUpSession),
				CONNECTION_TIMEOUT);
	}

	/** A started client with {@code handles}, connected. */
	private CuratorFramework connectedClient(String connectString, ZookeeperFactory handles, Duration connectionTimeout)
			throws Exception {
		CuratorFramework client = startedClient(connectString, handles, connectionTimeout);
		assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
		return client;
	}

	/**
	 * A started client with {@code handles}, not waiting for a connection, that retries a
	 * request once.
	 */
	private CuratorFramework startedClient(String connectString, ZookeeperFactory handles, Duration connectionTimeout) {
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(connectString)
			.zookeeperFactory(handles)
			.sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
			.connectionTimeoutMs((int) connectionTimeout.toMillis())
			.retryPolicy(new ExponentialBackoffRetry(100, 1))
			.build();
		client.start();
		return this.closeables.add(client);
	}

	private static AcquireResult attempt(LockBackend backend, Claim claim) throws Exception {
		return backend.tryAcquire(claim, SESSION_TIMEOUT).toCompletableFuture().get(10, TimeUnit.SECONDS);
	}

}
