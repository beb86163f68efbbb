package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AbstractLockKindsContractTests;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The kinds of lock on a real single ZooKeeper server, read back from the tree, plus what
 * is particular to ZooKeeper: the queue at the plain lock's path, a waiter whose session
 * ends, nodes of the original starter, and the one write of a fair hand-off.
 */
class ZooKeeperLockKindsContractTests extends AbstractLockKindsContractTests {

	/**
	 * Every claim of a kind, a reader's and a permit caller's too, is a sequential node
	 * of the key's queue, which a refused caller that gives up deletes.
	 */
	@Override
	protected boolean readersAndPermitCallersQueue() {
		return true;
	}

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final ZooKeeperLockPaths PATHS = new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT);

	/**
	 * A server of its own: tests here count the server's transactions, which sessions of
	 * other classes ending on a shared server would add to.
	 */
	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = EmbeddedZooKeeperExtension.ofItsOwn();

	@AfterEach
	void leavesNoQueueBehind() throws Exception {
		for (String name : zooKeeper.children(ZooKeeperLockBackend.DEFAULT_ROOT)) {
			String path = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + name;
			if (EmbeddedZooKeeper.lockKeyOf(name).startsWith(getClass().getSimpleName())) {
				// Every test releases what it holds, and a waiter that gives up
				// leaves the queue just after its caller hears so; an empty queue
				// is deleted by its last member.
				await().atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(zooKeeper.children(path)).as(path).isEmpty());
			}
		}
	}

	@Override
	protected LockBackend newBackend() {
		return new ClientClosingBackend(newClient());
	}

	private static CuratorFramework newClient() {
		try {
			return zooKeeper.newClient(SESSION_TIMEOUT);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Held: a plain lock node, or a queue with a node in it. */
	@Override
	protected boolean isLockedInStore(String key) {
		Stat stat = stat(PATHS.lockPath(key));
		return stat != null && (stat.getEphemeralOwner() != 0 || stat.getNumChildren() > 0);
	}

	@Test
	@Override
	@Disabled("A lock lasts as long as the session on ZooKeeper: a fixed lease is ignored, and a holder's place "
			+ "is freed when its session ends (aWaiterWhoseSessionEndsLeavesTheQueueAndTheOthersKeepTheirOrder)")
	protected void aHolderWhoseFixedLeaseRanOutLetsTheNextInAndItsLateCloseFreesNothing() {
	}

	@Test
	@Override
	@Disabled("A lock lasts as long as the session on ZooKeeper: a fixed lease is ignored")
	protected void aReaderWhoseFixedLeaseRanOutLeavesTheOtherReadersHolding() {
	}

	@Test
	@Override
	@Disabled("A lock lasts as long as the session on ZooKeeper: a fixed lease is ignored")
	protected void aLaterSharedHolderWithAShorterLeaseRunsOutAndTheEarlierStillHolds() {
	}

	@Test
	@Override
	@Disabled("A lock lasts as long as the session on ZooKeeper: a fixed lease is ignored")
	protected void aMultiKeyRequestWhoseFixedLeaseRanOutFreesNothingOfTheNextHolderWhenClosedLate() {
	}

	@Test
	void aFairQueueIsAContainerAtThePlainLockPathWithOneNodePerClaimAndTokensAreTheirCreationZxids() throws Exception {
		String path = PATHS.lockPath(key());
		try (LockHandle held = newLock().tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow()) {
			CompletableFuture<Optional<LockHandle>> waiting = newLock()
				.tryAcquireAsync(LockRequest.of(key()).withFair(true).withWaitTime(WAIT));
			await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(path).size() == 2);
			List<String> nodes = zooKeeper.children(path);
			assertThat(stat(path).getEphemeralOwner()).isZero();
			assertThat(nodes).allMatch((name) -> name.matches("fair-[0-9a-f]{24}-[0-9a-f]{16}-[0-9]{10}"));
			String first = nodes.stream()
				.min(Comparator.comparing((name) -> name.substring(name.length() - 10)))
				.orElseThrow();
			assertThat(held.fencingToken()).isEqualTo(stat(path + "/" + first).getCzxid());
			held.close();
			LockHandle next = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
			assertThat(next.fencingToken()).isGreaterThan(held.fencingToken())
				.isEqualTo(stat(path + "/" + zooKeeper.children(path).get(0)).getCzxid());
			next.close();
		}
		assertThat(stat(path)).isNull();
	}

	@Test
	void fencingTokensGrowAcrossEveryKindOfOneKey() throws Exception {
		DefaultDistributeLock lock = newLock();
		List<LockRequest> kinds = List.of(LockRequest.of(key()), LockRequest.of(key()).withFair(true),
				LockRequest.of(key()).withMode(LockMode.WRITE), LockRequest.of(key()).withMode(LockMode.READ),
				LockRequest.of(key()).withPermits(3), LockRequest.of(key()));
		long last = 0;
		for (LockRequest kind : kinds) {
			try (LockHandle held = lock.tryAcquire(kind).orElseThrow()) {
				assertThat(held.fencingToken()).isGreaterThan(last);
				last = held.fencingToken();
			}
		}
	}

	@Test
	void aWaiterWhoseSessionEndsLeavesTheQueueAndTheOthersKeepTheirOrder() throws Exception {
		String path = PATHS.lockPath(key());
		LockHandle held = newLock().tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		CuratorFramework crashingClient = newClient();
		ZooKeeperLockBackend crashingBackend = new ClientClosingBackend(crashingClient);
		CountingLockBackend crashing = CountingLockBackend.of(crashingBackend);
		DefaultDistributeLock crashingLock = new DefaultDistributeLock(crashing);
		ZooKeeperLockBackend behindBackend = new ClientClosingBackend(newClient());
		CountingLockBackend behind = CountingLockBackend.of(behindBackend);
		DefaultDistributeLock behindLock = new DefaultDistributeLock(behind);
		try {
			crashingLock.tryAcquireAsync(LockRequest.of(key()).withFair(true).withWaitTime(WAIT));
			assertThat(crashing.waiting.await(10, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Optional<LockHandle>> next = behindLock
				.tryAcquireAsync(LockRequest.of(key()).withFair(true).withWaitTime(WAIT));
			assertThat(behind.waiting.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(zooKeeper.children(path)).hasSize(3);
			// A crash: the session ends and the server deletes the session's nodes.
			crashingClient.close();
			await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(path).size() == 2);
			assertThat(next).isNotDone();
			held.close();
			next.get(10, TimeUnit.SECONDS).orElseThrow().close();
		}
		finally {
			behindLock.close();
			behindBackend.close();
			crashingLock.close();
			crashingBackend.close();
		}
	}

	@Test
	void aPlainNodeOfTheOriginalStarterAndTheOtherKindsExcludeEachOther() throws Exception {
		String path = PATHS.lockPath(key());
		List<LockRequest> kinds = List.of(LockRequest.of(key()).withFair(true),
				LockRequest.of(key()).withMode(LockMode.READ), LockRequest.of(key()).withMode(LockMode.WRITE),
				LockRequest.of(key()).withPermits(2));
		CuratorFramework oldNode = newClient();
		try {
			// What the original cn.dslcode starter does: an ephemeral node at the path.
			oldNode.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(path, bytes("old"));
			DefaultDistributeLock lock = newLock();
			assertThat(lock.tryAcquire(kinds.get(0).withWaitTime(Duration.ofMillis(200)))).isEmpty();
			for (LockRequest other : kinds.subList(1, kinds.size())) {
				assertThatExceptionOfType(LockKindConflictException.class).isThrownBy(() -> lock.tryAcquire(other))
					.withMessageContaining(key())
					.withMessageContaining("held in ZooKeeper as an exclusive lock");
			}
			assertThat(zooKeeper.children(path)).isEmpty();
			oldNode.delete().forPath(path);
			for (LockRequest kind : kinds) {
				try (LockHandle held = lock.tryAcquire(kind).orElseThrow()) {
					assertThatExceptionOfType(KeeperException.NodeExistsException.class)
						.isThrownBy(() -> oldNode.create()
							.creatingParentsIfNeeded()
							.withMode(CreateMode.EPHEMERAL)
							.forPath(path, bytes("old")));
				}
				// The last member deleted the queue: an old node takes the key at once.
				oldNode.create().withMode(CreateMode.EPHEMERAL).forPath(path, bytes("old"));
				oldNode.delete().forPath(path);
			}
		}
		finally {
			oldNode.close();
		}
	}

	@Test
	void aPlainAttemptDeletesAnEmptyQueueLeftBehindAndTakesTheKey() throws Exception {
		String path = PATHS.lockPath(key());
		zooKeeper.store().create().creatingParentContainersIfNeeded().withMode(CreateMode.CONTAINER).forPath(path);
		zooKeeper.store().setData().forPath(path, bytes("distributelock queue"));
		try (LockHandle held = newLock().tryAcquire(LockRequest.of(key())).orElseThrow()) {
			assertThat(stat(path).getEphemeralOwner()).isNotZero();
		}
		assertThat(stat(path)).isNull();
	}

	/**
	 * A claim that finds the key queued for as another kind deletes its node before it
	 * fails, as nothing gives a failed attempt of a conflict back; a delete whose answer
	 * is lost with the connection is sent again once the client is connected. Left in the
	 * queue until the session ends, the node would turn the key's own kind away once the
	 * holders before it had left.
	 */
	@Test
	void aConflictingClaimDeletesItsNodeThroughADroppedConnection() throws Exception {
		String path = PATHS.lockPath(key());
		AtomicReference<String> dropped = new AtomicReference<>();
		CuratorFramework dropping = EmbeddedZooKeeper.newClient(CuratorFrameworkFactory.builder()
			.connectString(zooKeeper.connectString())
			.zookeeperFactory((connectString, sessionTimeout, watcher, canBeReadOnly) -> new ZooKeeper(connectString,
					sessionTimeout, watcher, canBeReadOnly) {

				@Override
				public void delete(String node, int version, AsyncCallback.VoidCallback callback, Object context) {
					if (node.startsWith(path + "/read-") && dropped.compareAndSet(null, node)) {
						// As ZooKeeper answers a request in flight when the connection
						// drops.
						callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), node, context);
						return;
					}
					super.delete(node, version, callback, context);
				}

			}), SESSION_TIMEOUT);
		try (LockHandle fair = newLock().tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
				ZooKeeperLockBackend reading = new ClientClosingBackend(dropping)) {
			CompletableFuture<AcquireResult> read = reading
				.tryAcquire(new Claim(key(), "reader", null, LockKind.READ), Duration.ofSeconds(30))
				.toCompletableFuture();
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> read.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockKindConflictException.class);
			assertThat(dropped.get()).as("the delete whose answer was dropped").isNotNull();
			assertThat(zooKeeper.children(path)).as("the queue")
				.hasSize(1)
				.noneMatch((node) -> node.startsWith("read-"));
		}
	}

	/**
	 * A plain attempt that lists an empty queue, and cannot delete it because a member
	 * joined right after the listing, waits for the queue to end: a member that leaves by
	 * a crash leaves the queue empty, not deleted, and must wake the wait all the same. A
	 * persistent node with the queue's data and version stands for the queue, so that the
	 * server's reaper of empty containers (every half second in tests, every minute by
	 * default) does not end the wait in the member's place; the handle that lists the
	 * queue lets the member in between the listing and its answer.
	 */
	@Test
	void aPlainAttemptThatMetAQueueJoinedAsItWasFoundEmptyIsWokenWhenTheMemberLeaves() throws Exception {
		String path = PATHS.lockPath(key());
		zooKeeper.store().create().creatingParentContainersIfNeeded().withMode(CreateMode.PERSISTENT).forPath(path);
		zooKeeper.store().setData().forPath(path, bytes("distributelock queue"));
		try (Closeables closeables = new Closeables()) {
			CuratorFramework member = newClient();
			closeables.add(member::close);
			ZooKeeper listing = closeables.add(new ZooKeeper(zooKeeper.connectString(), 10_000, (event) -> {
			}) {

				@Override
				public void getChildren(String queue, boolean watch, AsyncCallback.ChildrenCallback callback,
						Object context) {
					super.getChildren(queue, watch, (code, name, listingContext, children) -> {
						try {
							member.create()
								.withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
								.forPath(queue + "/" + ZooKeeperKindNode.prefix(LockKind.FAIR, "member", 0));
						}
						catch (Exception ex) {
							throw new IllegalStateException(ex);
						}
						callback.processResult(code, name, listingContext, children);
					}, context);
				}

			});
			ZooKeeperSession session = new ZooKeeperSession(closeables.add(newClient()), PATHS);
			closeables.add(session::close);
			ZooKeeperPlainLocks plain = new ZooKeeperPlainLocks(session, new ZooKeeperEmptyQueues(session),
					"zookeeper");
			Claim claim = new Claim(key(), "plain", null, LockKind.EXCLUSIVE);
			CompletableFuture<AcquireResult> attempt = new CompletableFuture<>();
			plain.metQueue(listing, claim, path,
					() -> attempt.completeExceptionally(new AssertionError("a queue with a member was deleted")),
					attempt);
			AcquireResult found = attempt.get(10, TimeUnit.SECONDS);
			assertThat(found.acquired()).isFalse();
			assertThat(zooKeeper.children(path)).hasSize(1);
			CompletableFuture<Void> woken = plain.awaitRelease(claim, found, Deadline.after(Duration.ofMinutes(5)));

			// A crash: the session ends and the server deletes the member's node.
			member.close();

			woken.get(10, TimeUnit.SECONDS);
			AcquireResult taken = plain.tryAcquire(claim).get(10, TimeUnit.SECONDS);
			assertThat(taken.acquired()).as("the key is free").isTrue();
			assertThat(plain.release(claim).get(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			zooKeeper.store().delete().quietly().forPath(path);
		}
	}

	/**
	 * The queue's listing goes out right behind the transaction that creates the queue,
	 * so an uncontended release sends one request, the transaction deleting node and
	 * queue, without reading the queue first. A ping of an idle session can fall into one
	 * measurement, hence the fewest of three.
	 */
	@Test
	void anUncontendedReleaseSendsOneRequest() throws Exception {
		DefaultDistributeLock lock = newLock();
		long fewest = Long.MAX_VALUE;
		for (int round = 0; round < 3; round++) {
			LockHandle held = lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE)).orElseThrow();
			long before = ZooKeeperTree.requestsReceived(zooKeeper);
			held.close();
			// Less the report that read the count before, which counts itself.
			fewest = Math.min(fewest, ZooKeeperTree.requestsReceived(zooKeeper) - before - 1);
		}
		assertThat(fewest).as("requests of a release").isOne();
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void aFairHandOffIsOneWriteTheHoldersDelete() throws Exception {
		LockHandle held = newLock().tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		ZooKeeperLockBackend backend = new ClientClosingBackend(newClient());
		CountingLockBackend waiterBackend = CountingLockBackend.of(backend);
		DefaultDistributeLock waiter = new DefaultDistributeLock(waiterBackend);
		try {
			CompletableFuture<Optional<LockHandle>> next = waiter
				.tryAcquireAsync(LockRequest.of(key()).withFair(true).withWaitTime(WAIT));
			assertThat(waiterBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
			int attempts = waiterBackend.acquireAttempts.get();
			long before = ZooKeeperTree.lastZxid(zooKeeper);
			held.close();
			LockHandle taken = next.get(10, TimeUnit.SECONDS).orElseThrow();
			long writes = ZooKeeperTree.lastZxid(zooKeeper) - before;
			assertThat(writes).as("transactions from the release to the next holder").isOne();
			assertThat(waiterBackend.acquireAttempts.get() - attempts).isOne();
			taken.close();
		}
		finally {
			waiter.close();
			backend.close();
		}
	}

	/**
	 * In one session the fair claim of a blocking caller right behind the holder holds
	 * without waiting for the holder's delete: both nodes are the session's, and every
	 * node of another instance is behind them.
	 */
	@Test
	void theFairClaimRightBehindTheHolderOnItsSessionHoldsBeforeTheHoldersDeleteIsApplied() throws Exception {
		String path = PATHS.lockPath(key());
		LockRequest fair = LockRequest.of(key()).withFair(true).withWaitTime(WAIT);
		HeldBackReleases store = new HeldBackReleases(newClient());
		CountingLockBackend backend = CountingLockBackend.of(store);
		ExecutorService caller = Executors.newSingleThreadExecutor();
		CountDownLatch releasesGo = store.holdBackReleases();
		try (DefaultDistributeLock lock = new DefaultDistributeLock(backend);
				DefaultDistributeLock otherInstance = newLock()) {
			LockHandle held = lock.tryAcquire(fair).orElseThrow();
			Future<Optional<LockHandle>> next = caller.submit(() -> lock.tryAcquire(fair));
			assertThat(backend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Optional<LockHandle>> behind = otherInstance.tryAcquireAsync(fair);
			List<String> nodes = queueOfThree(path);
			CompletableFuture<Void> releasing = held.releaseAsync();
			LockHandle taken = next.get(10, TimeUnit.SECONDS).orElseThrow();
			assertThat(zooKeeper.children(path)).as("the holder's node, whose delete is held back")
				.contains(nodes.get(0));
			assertThat(releasing).isNotDone();
			assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken())
				.isEqualTo(stat(path + "/" + nodes.get(1)).getCzxid());
			assertThat(backend.admissions.get()).isOne();
			releasesGo.countDown();
			releasing.get(10, TimeUnit.SECONDS);
			assertThat(zooKeeper.children(path)).doesNotContain(nodes.get(0));
			assertThat(behind).as("the other instance's claim, behind the new holder").isNotDone();
			caller.submit(taken::close).get(10, TimeUnit.SECONDS);
			behind.get(10, TimeUnit.SECONDS).orElseThrow().close();
		}
		finally {
			releasesGo.countDown();
			caller.shutdownNow();
			store.close();
		}
		assertThat(stat(path)).isNull();
	}

	/**
	 * A blocking caller interrupted just as the store admits it by its holder's release
	 * returns only once what it was admitted to is given back: its node is gone when it
	 * hears of the interrupt, and the other instance's claim behind it holds next.
	 */
	@Test
	void aFairClaimInterruptedAsItIsAdmittedGivesItsNodeBackBeforeItsCallerReturns() throws Exception {
		String path = PATHS.lockPath(key());
		LockRequest fair = LockRequest.of(key()).withFair(true).withWaitTime(WAIT);
		ClientClosingBackend store = new ClientClosingBackend(newClient());
		CountingLockBackend backend = CountingLockBackend.of(store);
		ExecutorService caller = Executors.newSingleThreadExecutor();
		AtomicReference<Thread> callerThread = new AtomicReference<>();
		try (DefaultDistributeLock lock = new DefaultDistributeLock(backend);
				DefaultDistributeLock otherInstance = newLock()) {
			LockHandle held = lock.tryAcquire(fair).orElseThrow();
			Future<Object> next = caller.submit(() -> {
				callerThread.set(Thread.currentThread());
				try {
					return lock.tryAcquire(fair);
				}
				catch (InterruptedException ex) {
					return ex;
				}
			});
			assertThat(backend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<Optional<LockHandle>> behind = otherInstance.tryAcquireAsync(fair);
			String nextNode = queueOfThree(path).get(1);
			backend.onAdmission(() -> {
				Thread interrupted = callerThread.get();
				interrupted.interrupt();
				// Until the caller has taken the interrupt and waits for its call to
				// settle.
				await().atMost(Duration.ofSeconds(10))
					.until(() -> !interrupted.isInterrupted() && interrupted.getState() == Thread.State.WAITING);
			});
			held.close();
			assertThat(next.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
			assertThat(zooKeeper.children(path)).as("the interrupted caller's node").doesNotContain(nextNode);
			assertThat(backend.admissions.get()).isOne();
			assertThat(lock.heldLocks()).isEmpty();
			behind.get(10, TimeUnit.SECONDS).orElseThrow().close();
		}
		finally {
			caller.shutdownNow();
			store.close();
		}
		assertThat(stat(path)).isNull();
	}

	/**
	 * A non-blocking caller is handed the lock after the holder's delete, by the store's
	 * answer: admitted at once, its code would run in the holder's release.
	 */
	@Test
	void aNonBlockingFairClaimRightBehindTheHolderWaitsForTheHoldersDelete() throws Exception {
		LockRequest fair = LockRequest.of(key()).withFair(true).withWaitTime(WAIT);
		ClientClosingBackend store = new ClientClosingBackend(newClient());
		CountingLockBackend backend = CountingLockBackend.of(store);
		try (DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
			LockHandle held = lock.tryAcquire(fair).orElseThrow();
			CompletableFuture<Optional<LockHandle>> next = lock.tryAcquireAsync(fair);
			assertThat(backend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
			held.close();
			next.get(10, TimeUnit.SECONDS).orElseThrow().close();
			assertThat(backend.admissions.get()).isZero();
			assertThat(backend.handOvers.get()).isOne();
		}
		finally {
			store.close();
		}
	}

	@Test
	void namespacedClientsKeepTheirQueuesInTheirNamespace() throws Exception {
		String path = "/app" + PATHS.lockPath(key());
		LockRequest two = LockRequest.of(key()).withPermits(2);
		try (Closeables closeables = new Closeables()) {
			DefaultDistributeLock one = namespacedLock(closeables);
			DefaultDistributeLock other = namespacedLock(closeables);
			try (LockHandle first = one.tryAcquire(two).orElseThrow();
					LockHandle second = other.tryAcquire(two).orElseThrow()) {
				assertThat(zooKeeper.children(path)).hasSize(2).allMatch((name) -> name.startsWith("permits2-"));
				assertThat(stat(PATHS.lockPath(key()))).isNull();
			}
			assertThat(stat(path)).isNull();
		}
	}

	private static DefaultDistributeLock namespacedLock(Closeables closeables) throws Exception {
		CuratorFramework client = EmbeddedZooKeeper.newClient(
				CuratorFrameworkFactory.builder().connectString(zooKeeper.connectString()).namespace("app"),
				SESSION_TIMEOUT);
		ZooKeeperLockBackend backend = closeables.add(new ClientClosingBackend(client));
		return closeables.add(new DefaultDistributeLock(backend));
	}

	/**
	 * The three nodes of the queue at {@code path}, once they are there, in their order.
	 */
	private static List<String> queueOfThree(String path) throws Exception {
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(path).size() == 3);
		return zooKeeper.children(path)
			.stream()
			.sorted(Comparator.comparing((name) -> name.substring(name.length() - 10)))
			.toList();
	}

	private static Stat stat(String path) {
		try {
			return zooKeeper.store().checkExists().forPath(path);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	/** A backend on a client of its own, which it closes when it is closed. */
	private static class ClientClosingBackend extends ZooKeeperLockBackend {

		private final CuratorFramework client;

		ClientClosingBackend(CuratorFramework client) {
			super(client);
			this.client = client;
		}

		@Override
		public void close() {
			super.close();
			this.client.close();
		}

	}

	/** A backend whose releases start only once a test lets them go. */
	private static final class HeldBackReleases extends ClientClosingBackend {

		private volatile CountDownLatch releasesGo = new CountDownLatch(0);

		HeldBackReleases(CuratorFramework client) {
			super(client);
		}

		CountDownLatch holdBackReleases() {
			CountDownLatch go = new CountDownLatch(1);
			this.releasesGo = go;
			return go;
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			CountDownLatch go = this.releasesGo;
			if (go.getCount() == 0) {
				return super.release(claim);
			}
			return CompletableFuture.runAsync(() -> {
				try {
					if (!go.await(30, TimeUnit.SECONDS)) {
						throw new IllegalStateException("A held-back release was never let go");
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
			}).thenCompose((ignored) -> super.release(claim));
		}

	}

}
