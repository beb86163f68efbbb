package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockLossListener;
import io.github.distributelock.core.Locks;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Locks through failures of a real ensemble: a killed leader, a client failing over to
 * another server, a session that expires and a client cut off for longer than its
 * session. The tests that kill a server start an ensemble of their own.
 */
class ZooKeeperLockBackendFaultTests {

	private static final String KEY = "order.addOder_42";

	/**
	 * The session of clients that must keep their locks through a failover: the longest
	 * the servers grant (20 ticks of 1 s). On a loaded 2-core machine a client took up to
	 * 6 s to reconnect after a leader election, and a 10 s session once expired
	 * meanwhile.
	 */
	private static final Duration FAILOVER_SESSION = Duration.ofSeconds(20);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void heldLockSurvivesTheLossOfTheLeaderAndLocksKeepWorking() throws Exception {
		TestingCluster cluster = track(EmbeddedZooKeeper.startCluster(3));
		CuratorFramework holderClient = client(cluster.getConnectString(), FAILOVER_SESSION);
		CuratorFramework otherClient = client(cluster.getConnectString(), FAILOVER_SESSION);
		DefaultDistributeLock holder = lock(new ZooKeeperLockBackend(holderClient), false);
		DefaultDistributeLock other = lock(new ZooKeeperLockBackend(otherClient), false);
		LockHandle held = holder.tryAcquire(KEY, Duration.ZERO, null).orElseThrow();

		cluster.killServer(leader(cluster));

		long tokenAfterFailover = await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> acquireAndRelease(other, "after-failover"), (token) -> token > 0);
		assertThat(tokenAfterFailover).isGreaterThan(held.fencingToken());
		assertThat(held.isHeld()).isTrue();
		assertThat(stat(otherClient, KEY).getCzxid()).isEqualTo(held.fencingToken());
		assertThat(other.tryAcquire(KEY, Duration.ZERO, null)).isEmpty();
		held.close();
		assertThat(holder.lostLockCount()).isZero();
		assertThat(other.tryAcquire(KEY, Duration.ofSeconds(10), null)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void heldLockStaysHeldAndExclusiveWhenItsClientFailsOverToAnotherServer() throws Exception {
		TestingCluster cluster = track(EmbeddedZooKeeper.startCluster(3));
		List<InstanceSpec> followers = followers(cluster);
		CuratorFramework holderClient = client(connectString(followers), FAILOVER_SESSION);
		CuratorFramework otherClient = client(cluster.getConnectString(), FAILOVER_SESSION);
		ZooKeeperLockBackend holderBackend = new ZooKeeperLockBackend(holderClient);
		DefaultDistributeLock holder = lock(holderBackend, false);
		DefaultDistributeLock other = lock(new ZooKeeperLockBackend(otherClient), false);
		LockHandle held = holder.tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
		AtomicBoolean suspectWhileSuspended = new AtomicBoolean();
		// The listeners below are told in order, after the lock service, which registered
		// with the backend first: what the last one records, the others have heard.
		holderBackend.addLossListener(new LockLossListener() {

			@Override
			public void locksAtRisk(String reason) {
				suspectWhileSuspended.set(held.isSuspect() && held.isHeld());
			}

			@Override
			public void locksLost(String reason) {
			}

		});
		RecordingLossListener losses = new RecordingLossListener();
		holderBackend.addLossListener(losses);
		long session = holderClient.getZookeeperClient().getZooKeeper().getSessionId();
		InstanceSpec before = cluster.findConnectionInstance(holderClient.getZookeeperClient().getZooKeeper());

		cluster.killServer(before);

		await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> holderClient.getZookeeperClient().isConnected() && !before
				.equals(cluster.findConnectionInstance(holderClient.getZookeeperClient().getZooKeeper())));
		assertThat(holderClient.getZookeeperClient().getZooKeeper().getSessionId()).isEqualTo(session);
		// Curator tells of the suspension on its own thread, which may come after the
		// client is connected again.
		await().atMost(Duration.ofSeconds(30)).until(() -> losses.atRisk.get() > 0);
		assertThat(suspectWhileSuspended).isTrue();
		await().atMost(Duration.ofSeconds(30)).until(() -> losses.safe.get() > 0);
		assertThat(held.isSuspect()).isFalse();
		assertThat(losses.lost).hasValue(0);
		assertThat(held.isHeld()).isTrue();
		Stat node = await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> stat(otherClient, KEY), (stat) -> stat != null);
		assertThat(node.getEphemeralOwner()).isEqualTo(session);
		assertThat(node.getCzxid()).isEqualTo(held.fencingToken());
		assertThat(other.tryAcquire(KEY, Duration.ZERO, null)).isEmpty();
		held.close();
		assertThat(holder.lostLockCount()).isZero();
		assertThat(other.tryAcquire(KEY, Duration.ofSeconds(10), null)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void expiredSessionFreesTheLockForAWaiterAndTheOldHolderHearsOfTheLoss() throws Exception {
		CuratorFramework holderClient = client(zooKeeper.connectString(), Duration.ofSeconds(5));
		DefaultDistributeLock holder = lock(new ZooKeeperLockBackend(holderClient), true);
		CuratorFramework waiterClient = client(zooKeeper.connectString(), Duration.ofSeconds(5));
		CountingLockBackend waiterBackend = CountingLockBackend.of(track(new ZooKeeperLockBackend(waiterClient)));
		DefaultDistributeLock waiter = lock(waiterBackend, false);
		LockHandle held = holder.tryAcquire(KEY, Duration.ZERO, null).orElseThrow();
		CountDownLatch lost = new CountDownLatch(1);
		held.onLost((handle) -> lost.countDown());
		CompletableFuture<LockHandle> waiting = CompletableFuture
			.supplyAsync(() -> Locks.tryAcquire(waiter, KEY, Duration.ofSeconds(30)).orElseThrow());
		assertThat(waiterBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();

		zooKeeper.expireSession(holderClient);

		LockHandle taken = waiting.get(10, TimeUnit.SECONDS);
		assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(held.isHeld()).isFalse();
		assertThat(holder.lostLockCount()).isOne();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(held::close).withMessageContaining(KEY);
		assertThat(stat(holderClient, KEY).getEphemeralOwner())
			.isEqualTo(waiterClient.getZookeeperClient().getZooKeeper().getSessionId());
		taken.close();
		// The holder's client goes on with a new session.
		assertThat(holder.tryAcquire(KEY, Duration.ofSeconds(10), null)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void holderCutOffLongerThanItsSessionLosesTheLockToOthers() throws Exception {
		TestingCluster cluster = track(EmbeddedZooKeeper.startCluster(3));
		List<InstanceSpec> followers = followers(cluster);
		InstanceSpec holderServer = followers.get(0);
		// Without the ensemble tracker, which would teach it the other servers.
		CuratorFramework holderClient = track(EmbeddedZooKeeper.newClient(
				CuratorFrameworkFactory.builder().connectString(holderServer.getConnectString()).ensembleTracker(false),
				Duration.ofSeconds(3)));
		CuratorFramework otherClient = client(
				connectString(cluster.getInstances().stream().filter((spec) -> !spec.equals(holderServer)).toList()),
				Duration.ofSeconds(10));
		DefaultDistributeLock holder = lock(new ZooKeeperLockBackend(holderClient), false);
		DefaultDistributeLock other = lock(new ZooKeeperLockBackend(otherClient), false);
		LockHandle held = holder.tryAcquire(KEY, Duration.ZERO, null).orElseThrow();

		cluster.killServer(holderServer);

		LockHandle taken = other.tryAcquire(KEY, Duration.ofSeconds(20), null).orElseThrow();
		assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
		await().atMost(Duration.ofSeconds(20)).until(() -> !held.isHeld());
		// The handle is marked lost first, and the loss counted just after, on the thread
		// that learnt of it.
		await().atMost(Duration.ofSeconds(10)).until(() -> holder.lostLockCount() == 1);
		taken.close();
		// Back in touch, the holder goes on with a new session.
		cluster.restartServer(holderServer);
		held.close();
		assertThat(holder.tryAcquire(KEY, Duration.ofSeconds(20), null)).hasValueSatisfying(LockHandle::close);
	}

	private static long acquireAndRelease(DefaultDistributeLock lock, String key) throws InterruptedException {
		try (LockHandle handle = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
			return handle.fencingToken();
		}
	}

	private static Stat stat(CuratorFramework client, String key) throws Exception {
		return client.checkExists().forPath(new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT).lockPath(key));
	}

	private static InstanceSpec leader(TestingCluster cluster) {
		return await().atMost(Duration.ofSeconds(10))
			.until(() -> cluster.getInstances().stream().filter(EmbeddedZooKeeper::isLeader).findFirst().orElse(null),
					(spec) -> spec != null);
	}

	private static List<InstanceSpec> followers(TestingCluster cluster) {
		InstanceSpec leader = leader(cluster);
		return cluster.getInstances().stream().filter((spec) -> !spec.equals(leader)).toList();
	}

	private static String connectString(List<InstanceSpec> specs) {
		return specs.stream().map(InstanceSpec::getConnectString).collect(Collectors.joining(","));
	}

	private CuratorFramework client(String connectString, Duration sessionTimeout) throws Exception {
		return track(EmbeddedZooKeeper.newClient(connectString, sessionTimeout));
	}

	private DefaultDistributeLock lock(LockBackend backend, boolean throwOnLost) {
		if (backend instanceof AutoCloseable closeable) {
			track(closeable);
		}
		return track(new DefaultDistributeLock(backend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, throwOnLost,
				LockEventListener.NONE, null));
	}

	private <T extends AutoCloseable> T track(T closeable) {
		return this.closeables.add(closeable);
	}

	private static final class RecordingLossListener implements LockLossListener {

		final AtomicInteger atRisk = new AtomicInteger();

		final AtomicInteger lost = new AtomicInteger();

		final AtomicInteger safe = new AtomicInteger();

		@Override
		public void locksAtRisk(String reason) {
			this.atRisk.incrementAndGet();
		}

		@Override
		public void locksSafe(String reason) {
			this.safe.incrementAndGet();
		}

		@Override
		public void locksLost(String reason) {
			this.lost.incrementAndGet();
		}

	}

}
