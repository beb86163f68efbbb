package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.StreamSupport;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockKind;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sessions that end while a fair, write, read or permit caller waits in a key's queue, on
 * a real server: the waiter whose session ended queues again on its new session and is
 * let in by the holder's release, and a holder whose session ended lets the waiter in at
 * once; nothing is left in the queue; a claim never holds by a node of a session its
 * client gave up.
 */
class ZooKeeperKindSessionTests {

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration WAIT = Duration.ofSeconds(30);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@ParameterizedTest
	@ValueSource(strings = { "fair", "write", "read", "permits" })
	void aWaiterWhoseSessionEndedQueuesAgainAndIsLetInByTheRelease(String kind) throws Exception {
		String key = "waiter-session-" + kind + "." + System.nanoTime();
		CuratorFramework waiterClient = newClient();
		DefaultDistributeLock holderLock = newLock(newClient());
		ZooKeeperLockBackend waiterBackend = this.closeables.add(new ZooKeeperLockBackend(waiterClient));
		DefaultDistributeLock waiterLock = newLock(waiterBackend);
		// Told after the lock service, which registered first: once this heard the loss,
		// so did the lock service, and a lock taken later is not reported lost with it.
		CountDownLatch lossReported = new CountDownLatch(1);
		waiterBackend.addLossListener((reason) -> lossReported.countDown());
		LockHandle held = holderLock.tryAcquire(holding(key, kind)).orElseThrow();
		CompletableFuture<LockHandle> waiter = acquireAsync(waiterLock, waiting(key, kind));
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(queue).size() == 2);

		zooKeeper.expireSession(waiterClient);
		// Its node went with the session; its next attempt queues it again.
		await().atMost(Duration.ofSeconds(20))
			.until(() -> zooKeeper.children(queue).size() == 2 && waiterClient.getZookeeperClient().isConnected());
		assertThat(lossReported.await(20, TimeUnit.SECONDS)).as("the session's loss, reported").isTrue();
		held.close();

		// Let in by the release, long before its wait time would end.
		try (LockHandle taken = waiter.get(WAIT.toSeconds() / 2, TimeUnit.SECONDS)) {
			assertThat(taken.isHeld()).isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(queue).isEmpty());
	}

	@ParameterizedTest
	@ValueSource(strings = { "fair", "write", "read", "permits" })
	void aHolderWhoseSessionEndedLetsTheWaiterIn(String kind) throws Exception {
		String key = "holder-session-" + kind + "." + System.nanoTime();
		CuratorFramework holderClient = newClient();
		DefaultDistributeLock holderLock = newLock(holderClient);
		DefaultDistributeLock waiterLock = newLock(newClient());
		LockHandle held = holderLock.tryAcquire(holding(key, kind)).orElseThrow();
		CompletableFuture<LockHandle> waiter = acquireAsync(waiterLock, waiting(key, kind));
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(queue).size() == 2);

		zooKeeper.expireSession(holderClient);

		// Let in by the deletion of the holder's node, long before its wait time would
		// end.
		try (LockHandle taken = waiter.get(WAIT.toSeconds() / 2, TimeUnit.SECONDS)) {
			assertThat(taken.isHeld()).isTrue();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> !held.isHeld());
		held.close();
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(queue).isEmpty());
	}

	/**
	 * A client may give its session up on its own, as Curator does once it has been
	 * disconnected for a session timeout, while the server still keeps that session, and
	 * the nodes of its claims, until the server's own timeout runs out: the next attempt
	 * of a claim that waited must not hold by its node of the given-up session, which the
	 * server deletes later, freeing the key for another instance while the claim holds.
	 */
	@Test
	void aClaimNeverHoldsByItsNodeOfASessionItsClientGaveUp() throws Exception {
		String key = "given-up-session." + System.nanoTime();
		// Long enough for the server to keep the given-up session through the test.
		CuratorFramework waiterClient = this.closeables.add(zooKeeper.newClient(Duration.ofSeconds(30)));
		ZooKeeperLockBackend holder = this.closeables.add(new ZooKeeperLockBackend(newClient()));
		ZooKeeperLockBackend waiter = this.closeables.add(new ZooKeeperLockBackend(waiterClient));
		ZooKeeperLockBackend third = this.closeables.add(new ZooKeeperLockBackend(newClient()));
		Claim held = new Claim(key, "holder", null, LockKind.FAIR);
		Claim waiting = new Claim(key, "waiter", null, LockKind.FAIR);
		assertThat(attempt(holder, held).acquired()).isTrue();
		assertThat(attempt(waiter, waiting).acquired()).isFalse();
		ZooKeeper givenUp = waiterClient.getZookeeperClient().getZooKeeper();
		long givenUpSession = givenUp.getSessionId();
		byte[] password = givenUp.getSessionPasswd();
		// What Curator does after a session timeout spent disconnected: the handle is
		// told
		// its session expired, and Curator opens a new one; the server is told nothing.
		givenUp.getTestable().injectSessionExpiration();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> waiterClient.getZookeeperClient().isConnected()
					&& waiterClient.getZookeeperClient().getZooKeeper().getSessionId() != givenUpSession);
		assertThat(holder.release(held).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();

		AcquireResult taken = attempt(waiter, waiting);
		// The server ends the given-up session, as it does once its own timeout runs out.
		EmbeddedZooKeeper.expireSession(givenUpSession, password, zooKeeper.connectString());

		assertThat(taken.acquired()).isTrue();
		assertThat(attempt(third, new Claim(key, "third", null, LockKind.FAIR)).acquired())
			.as("a claim of another instance while the waiter holds")
			.isFalse();
	}

	/**
	 * A claim that leaves its node of a session its client gave up, the key's last, and
	 * finds the root gone as it queues again (the server removes an empty container root,
	 * every minute by default) holds the free key: leaving the node is not one of the
	 * attempts to create a node whose queue came and went, which ran out here and
	 * answered the key held.
	 */
	@Test
	void aClaimThatLeftItsNodeOfAGivenUpSessionTakesTheFreeKeyWhenTheRootWasRemoved() throws Exception {
		String root = "/given-up-root." + System.nanoTime();
		String key = "given-up-session";
		String queue = root + "/" + key;
		AtomicBoolean removeRoot = new AtomicBoolean();
		AtomicLong givenUpSession = new AtomicLong();
		CuratorFramework waiterClient = rootRemovingClient(queue, root, removeRoot, givenUpSession);
		ZooKeeperLockBackend holder = this.closeables.add(new ZooKeeperLockBackend(newClient(), root));
		ZooKeeperLockBackend waiter = this.closeables.add(new ZooKeeperLockBackend(waiterClient, root));
		Claim held = new Claim(key, "holder", null, LockKind.FAIR);
		Claim waiting = new Claim(key, "waiter", null, LockKind.FAIR);
		assertThat(attempt(holder, held).acquired()).isTrue();
		assertThat(attempt(waiter, waiting).acquired()).isFalse();
		GivenUpSessionKeeper.giveUpSession(waiterClient, givenUpSession);
		assertThat(zooKeeper.children(queue)).as("the holder's node and the waiter's of the given-up session")
			.hasSize(2);
		assertThat(holder.release(held).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
		removeRoot.set(true);

		AcquireResult taken = attempt(waiter, waiting);

		assertThat(removeRoot).as("the root removed").isFalse();
		assertThat(taken.acquired()).as("the free key").isTrue();
		assertThat(waiter.release(waiting).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
	}

	/**
	 * A claim that leaves its node of a session its client gave up sends the delete again
	 * when its answer is lost with the connection (here refused unsent, as a request in
	 * flight when the connection drops is answered): the node, the key's only one, would
	 * otherwise stay until the server ends that session, a session timeout later, and
	 * keep the claim waiting behind it for a free key.
	 */
	@Test
	void aClaimLeavingItsNodeOfAGivenUpSessionSendsTheDeleteAgainWhenItsAnswerIsLost() throws Exception {
		String key = "given-up-session.lost-delete." + System.nanoTime();
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		AtomicBoolean refuseNextWrite = new AtomicBoolean();
		AtomicBoolean refused = new AtomicBoolean();
		AtomicLong givenUpSession = new AtomicLong();
		CuratorFramework waiterClient = writeRefusingClient(refuseNextWrite, refused, givenUpSession);
		ZooKeeperLockBackend holder = this.closeables.add(new ZooKeeperLockBackend(newClient()));
		ZooKeeperLockBackend waiter = this.closeables.add(new ZooKeeperLockBackend(waiterClient));
		Claim held = new Claim(key, "holder", null, LockKind.FAIR);
		Claim waiting = new Claim(key, "waiter", null, LockKind.FAIR);
		assertThat(attempt(holder, held).acquired()).isTrue();
		assertThat(attempt(waiter, waiting).acquired()).isFalse();
		GivenUpSessionKeeper.giveUpSession(waiterClient, givenUpSession);
		assertThat(holder.release(held).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
		refuseNextWrite.set(true);

		AcquireResult taken = attempt(waiter, waiting);

		assertThat(refused).as("the delete of the node of the given-up session refused").isTrue();
		assertThat(zooKeeper.children(queue)).as("the claim's node on its new session alone").hasSize(1);
		assertThat(taken.acquired()).as("the free key").isTrue();
		assertThat(waiter.release(waiting).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
	}

	/**
	 * A client whose handle, once armed, answers the next delete or transaction of writes
	 * with a connection loss, unsent; and that closes no handle of {@code givenUpSession}
	 * on the server, which keeps that session through the test.
	 */
	private CuratorFramework writeRefusingClient(AtomicBoolean refuseNextWrite, AtomicBoolean refused,
			AtomicLong givenUpSession) throws Exception {
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
			.connectString(zooKeeper.connectString())
			.zookeeperFactory((connectString, sessionTimeout, watcher, canBeReadOnly) -> new GivenUpSessionKeeper(
					connectString, sessionTimeout, watcher, canBeReadOnly, givenUpSession) {

				@Override
				public void delete(String path, int version, AsyncCallback.VoidCallback callback, Object context) {
					if (refuseNextWrite.compareAndSet(true, false)) {
						refused.set(true);
						callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), path, context);
						return;
					}
					super.delete(path, version, callback, context);
				}

				@Override
				public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback callback, Object context) {
					boolean writes = StreamSupport.stream(ops.spliterator(), false)
						.anyMatch((op) -> op.getType() != ZooDefs.OpCode.getData);
					if (writes && refuseNextWrite.compareAndSet(true, false)) {
						refused.set(true);
						callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), null, context, null);
						return;
					}
					super.multi(ops, callback, context);
				}

			});
		return this.closeables.add(EmbeddedZooKeeper.newClient(builder, Duration.ofSeconds(30)));
	}

	/**
	 * A client whose handle, once armed, removes the (empty) root right after a
	 * transaction deletes {@code queue}, as the server's reaper of empty containers does;
	 * and that closes no handle of {@code givenUpSession} on the server: Curator closes
	 * the handle it replaces, which may still end its session there, while a client that
	 * gave its session up says nothing to the server. The server keeps that session
	 * through the test.
	 */
	private CuratorFramework rootRemovingClient(String queue, String root, AtomicBoolean removeRoot,
			AtomicLong givenUpSession) throws Exception {
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
			.connectString(zooKeeper.connectString())
			.zookeeperFactory((connectString, sessionTimeout, watcher, canBeReadOnly) -> new GivenUpSessionKeeper(
					connectString, sessionTimeout, watcher, canBeReadOnly, givenUpSession) {

				@Override
				public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback callback, Object context) {
					boolean deletesQueue = StreamSupport.stream(ops.spliterator(), false)
						.anyMatch((op) -> op.getType() == ZooDefs.OpCode.delete && op.getPath().equals(queue));
					if (!deletesQueue || !removeRoot.get()) {
						super.multi(ops, callback, context);
						return;
					}
					super.multi(ops, (code, path, answerContext, results) -> {
						if (code == KeeperException.Code.OK.intValue() && removeRoot.compareAndSet(true, false)) {
							removeEmpty(root);
						}
						callback.processResult(code, path, answerContext, results);
					}, context);
				}

			});
		return this.closeables.add(EmbeddedZooKeeper.newClient(builder, Duration.ofSeconds(30)));
	}

	private static void removeEmpty(String root) {
		try {
			zooKeeper.store().delete().forPath(root);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The transaction that creates a key's queue with the claim's node in it was applied
	 * on a session that the client then gave up, before the claim read the answer: the
	 * claim must not hold by that node, which the server deletes with that session.
	 */
	@Test
	void aClaimNeverHoldsByTheNodeItsQueueWasCreatedWithOnASessionGivenUpBeforeTheAnswer() throws Exception {
		String key = "given-up-before-the-answer." + System.nanoTime();
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		CompletableFuture<Runnable> heldAnswer = new CompletableFuture<>();
		// Long enough for the server to keep the given-up session through the test.
		CuratorFramework client = this.closeables.add(EmbeddedZooKeeper.newClient(CuratorFrameworkFactory.builder()
			.connectString(zooKeeper.connectString())
			.zookeeperFactory(QueueAnswerHolding.handles(queue, heldAnswer)), Duration.ofSeconds(30)));
		ZooKeeperLockBackend claiming = this.closeables.add(new ZooKeeperLockBackend(client));
		ZooKeeperLockBackend other = this.closeables.add(new ZooKeeperLockBackend(newClient()));
		Claim claim = new Claim(key, "claim", null, LockKind.FAIR);
		CompletableFuture<AcquireResult> attempt = claiming.tryAcquire(claim, Duration.ofSeconds(30))
			.toCompletableFuture();
		Runnable answer = heldAnswer.get(10, TimeUnit.SECONDS);
		ZooKeeper givenUp = client.getZookeeperClient().getZooKeeper();
		long givenUpSession = givenUp.getSessionId();
		byte[] password = givenUp.getSessionPasswd();
		// What Curator does after a session timeout spent disconnected: the handle is
		// told its session expired, and Curator opens a new one; the server is told
		// nothing.
		givenUp.getTestable().injectSessionExpiration();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> client.getZookeeperClient().isConnected()
					&& client.getZookeeperClient().getZooKeeper().getSessionId() != givenUpSession);

		answer.run();
		AcquireResult taken = attempt.get(10, TimeUnit.SECONDS);
		// The server ends the given-up session, as it does once its own timeout runs out.
		EmbeddedZooKeeper.expireSession(givenUpSession, password, zooKeeper.connectString());

		assertThat(taken.acquired()).isTrue();
		assertThat(zooKeeper.children(queue)).as("the claim's node").hasSize(1);
		assertThat(attempt(other, new Claim(key, "other", null, LockKind.FAIR)).acquired())
			.as("a claim of another instance while the claim holds")
			.isFalse();
	}

	private static AcquireResult attempt(LockBackend backend, Claim claim) throws Exception {
		return backend.tryAcquire(claim, Duration.ofSeconds(30)).toCompletableFuture().get(10, TimeUnit.SECONDS);
	}

	/**
	 * A request of {@code kind} ("fair", "write", "read", "permits") that holds the key.
	 */
	static LockRequest holding(String key, String kind) {
		return switch (kind) {
			case "fair" -> LockRequest.of(key).withFair(true);
			case "write", "read" -> LockRequest.of(key).withMode(LockMode.WRITE);
			default -> LockRequest.of(key).withPermits(1);
		};
	}

	/** A request of {@code kind} that waits while {@link #holding} holds the key. */
	static LockRequest waiting(String key, String kind) {
		LockRequest request = switch (kind) {
			case "fair" -> LockRequest.of(key).withFair(true);
			case "write" -> LockRequest.of(key).withMode(LockMode.WRITE);
			case "read" -> LockRequest.of(key).withMode(LockMode.READ);
			default -> LockRequest.of(key).withPermits(1);
		};
		return request.withWaitTime(WAIT);
	}

	private static CompletableFuture<LockHandle> acquireAsync(DefaultDistributeLock lock, LockRequest request) {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return lock.tryAcquire(request).orElseThrow();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
	}

	private CuratorFramework newClient() throws Exception {
		return this.closeables.add(zooKeeper.newClient(SESSION_TIMEOUT));
	}

	private DefaultDistributeLock newLock(CuratorFramework client) {
		return newLock(this.closeables.add(new ZooKeeperLockBackend(client)));
	}

	private DefaultDistributeLock newLock(ZooKeeperLockBackend backend) {
		return this.closeables
			.add(new DefaultDistributeLock(backend, Duration.ofSeconds(30), false, LockEventListener.NONE, null));
	}

}
