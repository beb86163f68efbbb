package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.AbstractLockBackendContractTests;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.HandOverLockBackend;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.VirtualThreadContract;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.test.WatchersDebug;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The contract on a real single ZooKeeper server, with callers on platform threads and on
 * virtual threads (waiting on the watches of Curator's client), plus what is particular
 * to ZooKeeper: the node layout, the fencing token, the escaping of keys, no znodes left
 * behind, and locks that last as long as the session rather than a lease.
 */
class ZooKeeperLockBackendContractTests {

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

	private static final ZooKeeperLockPaths PATHS = new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@Nested
	class OnPlatformThreads extends ZooKeeperContract {

	}

	@Nested
	@VirtualThreadContract
	class OnVirtualThreads extends ZooKeeperContract {

	}

	abstract class ZooKeeperContract extends AbstractLockBackendContractTests {

		@Override
		protected ZooKeeperLockBackend newBackend() {
			return new ZooKeeperLockBackend(newClient());
		}

		private CuratorFramework newClient() {
			try {
				return closeAfterTest(zooKeeper.newClient(SESSION_TIMEOUT));
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

		/** A lock on a client of its own, which a test ends the session of. */
		private DefaultDistributeLock newLock(CuratorFramework client, boolean throwOnLost) {
			return newLock(trackBackend(new ZooKeeperLockBackend(client)), DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE,
					throwOnLost);
		}

		@Override
		protected boolean isLockedInStore(String key) {
			return stat(PATHS.lockPath(key)) != null;
		}

		/**
		 * The children of {@code path}, none if it is gone: a container the server
		 * removed once empty, which on a loaded machine can happen before the check.
		 */
		private List<String> childrenOrNone(String path) throws Exception {
			try {
				return zooKeeper.store().getChildren().forPath(path);
			}
			catch (KeeperException.NoNodeException ex) {
				return List.of();
			}
		}

		private Stat stat(String path) {
			try {
				return zooKeeper.store().checkExists().forPath(path);
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}

		/**
		 * A lock lives as long as the session: a fixed lease is ignored, and the lock is
		 * freed when the holder's session ends.
		 */
		@Test
		@Override
		protected void fixedLeaseExpires() throws Exception {
			CuratorFramework holderClient = newClient();
			DefaultDistributeLock lock = newLock(holderClient, false);
			DefaultDistributeLock other = newLock();
			LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
			await().during(Duration.ofSeconds(1))
				.atMost(Duration.ofSeconds(5))
				.until(() -> handle.isHeld() && isLockedInStore(key()));
			assertThat(other.tryAcquire(key(), Duration.ZERO, null)).isEmpty();
			zooKeeper.expireSession(holderClient);
			assertThat(other.tryAcquire(key(), Duration.ofSeconds(10), null)).hasValueSatisfying(LockHandle::close);
			await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
			handle.close();
			// The handle is marked lost first, and the loss counted just after, on the
			// thread that learnt of it, which the close of a lost lock does not wait for.
			await().atMost(Duration.ofSeconds(10)).until(() -> lock.lostLockCount() == 1);
		}

		/**
		 * A fixed lease is ignored: the hold is lost with the session instead, and the
		 * thread that held it must not join the lost hold once another instance took the
		 * key.
		 */
		@Test
		@Override
		protected void aThreadWhoseFixedLeaseRanOutCannotReenterTheKeyAnotherInstanceTook() throws Exception {
			CuratorFramework holderClient = newClient();
			DefaultDistributeLock lock = newLock(holderClient, false);
			DefaultDistributeLock other = newLock();
			LockHandle stale = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
			zooKeeper.expireSession(holderClient);
			LockHandle taken = other.tryAcquire(key(), Duration.ofSeconds(10), null).orElseThrow();
			// Unlike a lease, the end of a session reaches the holder late: a reentrant
			// entry before that joins the hold it believes it has, as Curator's does.
			await().atMost(Duration.ofSeconds(10)).until(() -> !stale.isHeld());
			Optional<LockHandle> again = lock.tryAcquire(key(), Duration.ZERO, null);
			again.ifPresent(LockHandle::close);
			assertThat(again).as("a reentrant entry into a lock another instance holds").isEmpty();
			stale.close();
			assertThat(taken.isHeld()).isTrue();
			assertThat(isLockedInStore(key())).isTrue();
			taken.close();
			try (LockHandle afresh = lock.tryAcquire(key(), Duration.ofSeconds(10), null).orElseThrow()) {
				assertThat(afresh.fencingToken()).isGreaterThan(taken.fencingToken());
			}
			assertThat(isLockedInStore(key())).isFalse();
		}

		/**
		 * A value-owned lock with a fixed lease that is never released is not freed by
		 * its lease either, for threads of the same instance or others: only its value or
		 * the end of the session frees it.
		 */
		@Test
		@Override
		protected void forgottenFixedLeaseLockFreesTheKeyForThreadsOfTheSameInstance() throws Exception {
			DefaultDistributeLock lock = newLock();
			assertThat(lock.tryLock(key(), "never-released", 0, 300)).isTrue();
			assertThat(lock.tryAcquire(key(), Duration.ofSeconds(1), null)).isEmpty();
			assertThat(isLockedInStore(key())).isTrue();
			assertThat(lock.releaseLock(key(), "never-released")).isTrue();
			assertThat(lock.tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
		}

		/**
		 * The loss is the end of the session: the server removes the node, and the holder
		 * hears that its session was lost.
		 */
		@Test
		@Override
		protected void lostLockIsReportedToListenersAndAtRelease() throws Exception {
			CuratorFramework holderClient = newClient();
			DefaultDistributeLock lock = newLock(holderClient, true);
			LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
			CountDownLatch lost = new CountDownLatch(1);
			AtomicReference<LockHandle> reported = new AtomicReference<>();
			handle.onLost((lostHandle) -> {
				reported.set(lostHandle);
				lost.countDown();
			});
			zooKeeper.expireSession(holderClient);
			assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(reported.get()).isSameAs(handle);
			assertThat(handle.isHeld()).isFalse();
			assertThat(isLockedInStore(key())).isFalse();
			assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close).withMessageContaining(key());
			assertThat(lock.lostLockCount()).isOne();
		}

		/**
		 * There is no lease to renew: a short watchdog lease changes nothing, and the
		 * store is never asked to renew.
		 */
		@Test
		@Override
		protected void watchdogKeepsAShortLeaseAliveThroughALongCriticalSection() throws Exception {
			CountingLockBackend backend = trackBackend(CountingLockBackend.of(newBackend()));
			DefaultDistributeLock lock = newLock(backend, Duration.ofMillis(300), false);
			DefaultDistributeLock other = newLock();
			try (LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
				await().during(Duration.ofSeconds(2))
					.atMost(Duration.ofSeconds(5))
					.pollInterval(Duration.ofMillis(200))
					.until(() -> handle.isHeld() && isLockedInStore(key())
							&& other.tryAcquire(key(), Duration.ZERO, null).isEmpty());
			}
			assertThat(backend.renewals).hasValue(0);
			assertThat(isLockedInStore(key())).isFalse();
			assertThat(lock.lostLockCount()).isZero();
		}

		@Test
		void storesTheOwnerInAnEphemeralNodeOfTheHoldersSessionUnderTheRoot() throws Exception {
			CuratorFramework client = newClient();
			DefaultDistributeLock lock = newLock(client, false);
			assertThat(lock.tryLock(key(), "owner-1", 0, -1)).isTrue();
			Stat stat = new Stat();
			byte[] data = zooKeeper.store().getData().storingStatIn(stat).forPath("/locks/" + key());
			assertThat(new String(data, StandardCharsets.UTF_8)).isEqualTo("owner-1");
			assertThat(stat.getEphemeralOwner()).isEqualTo(client.getZookeeperClient().getZooKeeper().getSessionId());
			assertThat(lock.releaseLock(key(), "owner-1")).isTrue();
			assertThat(isLockedInStore(key())).isFalse();
		}

		@Test
		void fencingTokenIsTheCreationZxidOfTheNode() throws Exception {
			DefaultDistributeLock lock = newLock();
			try (LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
				assertThat(handle.fencingToken()).isEqualTo(stat(PATHS.lockPath(key())).getCzxid());
			}
		}

		@Test
		void releaseNeverDeletesANodeRecreatedByAnotherOwner() throws Exception {
			LockBackend backend = trackBackend(newBackend());
			assertThat(Backends.tryAcquire(backend, key(), "first", Duration.ofSeconds(30)).acquired()).isTrue();
			recreateOnAnotherSession("second");
			assertThat(Backends.release(backend, key(), "first")).isFalse();
			assertThat(zooKeeper.store().getData().forPath(PATHS.lockPath(key()))).isEqualTo(bytes("second"));
			zooKeeper.store().delete().forPath(PATHS.lockPath(key()));
		}

		/**
		 * Deletes the test key's node by hand and creates it again on another session.
		 */
		private void recreateOnAnotherSession(String owner) throws Exception {
			zooKeeper.store().delete().forPath(PATHS.lockPath(key()));
			// The root is a container, which the server may remove as soon as it is
			// empty.
			zooKeeper.store()
				.create()
				.creatingParentContainersIfNeeded()
				.withMode(CreateMode.EPHEMERAL)
				.forPath(PATHS.lockPath(key()), bytes(owner));
		}

		@Test
		void handOverNeverWritesIntoANodeRecreatedByAnotherOwner() throws Exception {
			ZooKeeperLockBackend backend = trackBackend(newBackend());
			assertThat(Backends.tryAcquire(backend, key(), "first", Duration.ofSeconds(30)).acquired()).isTrue();
			// Even with the holder's owner in it: the node is another session's.
			recreateOnAnotherSession("first");
			HandOverLockBackend.HandOver handOver = Backends.handOver(backend, key(), "first", "next",
					Duration.ofSeconds(30));
			assertThat(handOver.released()).isFalse();
			assertThat(handOver.next().acquired()).isFalse();
			assertThat(zooKeeper.store().getData().forPath(PATHS.lockPath(key()))).isEqualTo(bytes("first"));
			zooKeeper.store().delete().forPath(PATHS.lockPath(key()));
		}

		@Test
		void handOverWritesTheNextOwnerWithTheZxidOfThatWriteAsItsToken() throws Exception {
			ZooKeeperLockBackend backend = trackBackend(newBackend());
			AcquireResult first = Backends.tryAcquire(backend, key(), "first", Duration.ofSeconds(30));
			HandOverLockBackend.HandOver handOver = Backends.handOver(backend, key(), "first", "next",
					Duration.ofSeconds(30));
			assertThat(handOver.released()).isTrue();
			assertThat(handOver.next().acquired()).isTrue();
			Stat node = stat(PATHS.lockPath(key()));
			assertThat(zooKeeper.store().getData().forPath(PATHS.lockPath(key()))).isEqualTo(bytes("next"));
			assertThat(handOver.next().fencingToken()).isEqualTo(node.getMzxid()).isGreaterThan(first.fencingToken());
			// Curator retries a request whose answer was lost: an attempt that finds the
			// node it was handed owns it, with the token of the hand-over.
			assertThat(Backends.tryAcquire(backend, key(), "next", Duration.ofSeconds(30)).fencingToken())
				.isEqualTo(handOver.next().fencingToken());
			assertThat(Backends.release(backend, key(), "first")).isFalse();
			assertThat(Backends.release(backend, key(), "next")).isTrue();
		}

		/**
		 * Another instance that found an empty queue of the other kinds at the path
		 * deletes it by the queue's version; by the time it does, a plain node may have
		 * taken the path and been handed over once.
		 */
		@Test
		void aNodeHandedOverIsNeverDeletedAsAnEmptyQueue() throws Exception {
			ZooKeeperLockBackend backend = trackBackend(newBackend());
			assertThat(Backends.tryAcquire(backend, key(), "first", Duration.ofSeconds(30)).acquired()).isTrue();
			assertThat(Backends.handOver(backend, key(), "first", "next", Duration.ofSeconds(30)).released()).isTrue();
			String path = PATHS.lockPath(key());
			assertThat(stat(path).getVersion()).as("the node's version").isNotEqualTo(ZooKeeperKindLocks.QUEUE_VERSION);

			ZooKeeperSession otherInstance = new ZooKeeperSession(newClient(), PATHS);
			closeAfterTest(otherInstance::close);
			assertThat(new ZooKeeperEmptyQueues(otherInstance).deleteEmptyQueue(path).get(10, TimeUnit.SECONDS))
				.as("the path is free")
				.isFalse();

			assertThat(zooKeeper.store().getData().forPath(path)).isEqualTo(bytes("next"));
			assertThat(Backends.release(backend, key(), "next")).isTrue();
		}

		@Test
		void nodeLeftByALostAnswerIsOwnedOnlyOnTheSessionThatMadeIt() throws Exception {
			CuratorFramework client = newClient();
			LockBackend backend = trackBackend(new ZooKeeperLockBackend(client));
			// As if Curator retried a create whose answer was lost: the node is there
			// already.
			client.create()
				.creatingParentContainersIfNeeded()
				.withMode(CreateMode.EPHEMERAL)
				.forPath(PATHS.lockPath(key()), bytes("owner"));
			assertThat(Backends.tryAcquire(backend, key(), "owner", Duration.ofSeconds(30)).fencingToken())
				.isEqualTo(stat(PATHS.lockPath(key())).getCzxid());
			assertThat(Backends.tryAcquire(backend, key(), "someone-else", Duration.ofSeconds(30)).acquired())
				.isFalse();
			LockBackend otherSession = trackBackend(newBackend());
			assertThat(Backends.tryAcquire(otherSession, key(), "owner", Duration.ofSeconds(30)).acquired()).isFalse();
			assertThat(Backends.release(backend, key(), "owner")).isTrue();
		}

		@Test
		void waiterIsWokenByTheWatchWithoutPolling() throws Exception {
			DefaultDistributeLock holder = newLock();
			CountingLockBackend waiterBackend = trackBackend(CountingLockBackend.of(newBackend()));
			DefaultDistributeLock waiter = newLock(waiterBackend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
			LockHandle held = holder.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
			ExecutorService executor = newExecutor(1);
			try {
				Future<LockHandle> waiting = executor
					.submit(() -> waiter.tryAcquire(key(), Duration.ofSeconds(20), null).orElseThrow());
				assertThat(waiterBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
				await().during(Duration.ofSeconds(1))
					.atMost(Duration.ofSeconds(3))
					.until(() -> waiterBackend.acquireAttempts.get() == 1);
				held.close();
				waiting.get(10, TimeUnit.SECONDS).close();
				assertThat(waiterBackend.acquireAttempts).hasValue(2);
			}
			finally {
				executor.shutdownNow();
			}
		}

		/**
		 * Without a lease to cut, the release at the end of a minimum hold is sent by
		 * this JVM; a shutdown sends it at once, as closing the session would remove the
		 * node.
		 */
		@Test
		void minimumHoldReleaseIsSentAtShutdownWhenItComesFirst() throws Exception {
			DefaultDistributeLock lock = newLock();
			lock.tryAcquire(LockRequest.of(key()).withMinimumHold(Duration.ofMinutes(5))).orElseThrow().close();
			assertThat(isLockedInStore(key())).isTrue();
			lock.close();
			assertThat(isLockedInStore(key())).isFalse();
		}

		@Test
		void waitThatTimesOutLeavesNoWatchBehind() throws Exception {
			DefaultDistributeLock holder = newLock();
			CuratorFramework waiterClient = newClient();
			DefaultDistributeLock waiter = newLock(waiterClient, false);
			try (LockHandle held = holder.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
				assertThat(waiter.tryAcquire(key(), Duration.ofMillis(200), null)).isEmpty();
				// The ended wait's watch is removed by a request the timer thread sends
				// as it wakes the caller, and leaves the client once the server answers
				// it, which the caller's last attempt does not wait for.
				await().atMost(Duration.ofSeconds(10))
					.untilAsserted(() -> assertThat(
							WatchersDebug.getDataWatches(waiterClient.getZookeeperClient().getZooKeeper()))
						.doesNotContain(PATHS.lockPath(key())));
			}
		}

		@Test
		void namespacedClientKeepsItsLocksInItsNamespace() throws Exception {
			CuratorFramework client = closeAfterTest(EmbeddedZooKeeper.newClient(
					CuratorFrameworkFactory.builder().connectString(zooKeeper.connectString()).namespace("app"),
					SESSION_TIMEOUT));
			DefaultDistributeLock lock = newLock(client, false);
			assertThat(lock.tryLock(key(), "owner", 0, -1)).isTrue();
			assertThat(stat("/app" + PATHS.lockPath(key()))).isNotNull();
			assertThat(lock.releaseLock(key(), "owner")).isTrue();
			assertThat(stat("/app" + PATHS.lockPath(key()))).isNull();
		}

		@Test
		void keysThatAreNoPathSegmentStillNameOneNodeUnderTheRoot() throws Exception {
			DefaultDistributeLock lock = newLock();
			DefaultDistributeLock other = newLock();
			List<String> keys = List.of("a/b", "a%2Fb", "/", "..", ".", "../../zookeeper", "with spaces and\ttabs",
					"\u9501-\u00e9-\ud83d\udd12", "control\u0000\u0001\u007f\u0085", "zookeeper", "x".repeat(1_000),
					"\u9501".repeat(1_000), "\ud83d\udd12".repeat(500));
			for (String odd : keys) {
				String lockKey = key() + odd;
				try (LockHandle handle = lock.tryAcquire(lockKey, Duration.ZERO, null).orElseThrow()) {
					String nodeName = PATHS.nodeName(lockKey);
					assertThat(nodeName).doesNotContain("/");
					assertThat(stat("/locks/" + nodeName)).isNotNull();
					assertThat(ZooKeeperLockPaths.keyOf(nodeName)).isEqualTo(lockKey);
					assertThat(other.tryAcquire(lockKey, Duration.ZERO, null)).isEmpty();
				}
				assertThat(isLockedInStore(lockKey)).isFalse();
			}
		}

		@Test
		void keyTooLongForZooKeeperFailsWithAClearMessage() {
			DefaultDistributeLock lock = newLock();
			assertThatExceptionOfType(DistributeLockException.class)
				.isThrownBy(() -> lock.tryAcquire("\u9501".repeat(5_000), Duration.ZERO, null))
				.withMessageContaining("15000 bytes once escaped")
				.withMessageContaining("at most 8192 bytes")
				.withRootCauseInstanceOf(IllegalArgumentException.class);
		}

		@Test
		void tenThousandLocksOnDistinctKeysLeaveNoNodeBehind() throws Exception {
			String root = "/" + key().replace('.', '-');
			DefaultDistributeLock lock = newLock(trackBackend(new ZooKeeperLockBackend(newClient(), root)),
					DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
			int threads = 4;
			ExecutorService executor = newExecutor(threads);
			try {
				List<Future<?>> workers = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					int worker = t;
					workers.add(executor.submit(() -> {
						for (int i = worker; i < 10_000; i += threads) {
							lock.tryAcquire("key-" + i, Duration.ZERO, null).orElseThrow().close();
						}
						return null;
					}));
				}
				for (Future<?> worker : workers) {
					worker.get(120, TimeUnit.SECONDS);
				}
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(childrenOrNone(root)).isEmpty();
			// The root is a container: the server removes it once it is empty.
			await().atMost(Duration.ofSeconds(10)).until(() -> stat(root) == null);
		}

		private byte[] bytes(String text) {
			return text.getBytes(StandardCharsets.UTF_8);
		}

	}

}
