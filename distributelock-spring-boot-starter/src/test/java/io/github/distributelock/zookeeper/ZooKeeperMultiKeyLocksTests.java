package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.distributelock.Closeables;
import io.github.distributelock.TestKey;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keys of a multi-key request on a real ZooKeeper server: their plain nodes created
 * in one transaction and deleted in one, read from the store itself. The behaviour every
 * store shares is in the kinds contract ({@link ZooKeeperLockKindsContractTests}).
 */
class ZooKeeperMultiKeyLocksTests {

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

	private static final ZooKeeperLockPaths PATHS = new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@RegisterExtension
	final TestKey key = new TestKey();

	@Test
	void theNodesAreCreatedInOneTransactionAndDeletedInOneAndTheirCreationZxidsAreTheTokens() throws Exception {
		CuratorFramework client = newClient(CuratorFrameworkFactory.builder());
		CountingLockBackend backend = CountingLockBackend.of(new ZooKeeperLockBackend(client));
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend));
		String a = this.key.name() + ".a";
		String b = this.key.name() + ".b/with a slash";
		// The root exists, so that the transactions below are the only writes.
		lock.tryAcquire(this.key.name() + ".warm-up", Duration.ZERO, null).orElseThrow().close();
		LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of(b), LockRequest.of(a)).withOwner("owner-1"))
			.orElseThrow();
		// Read from the nodes, not from the server's last zxid, which other sessions of
		// the server (closing, on a busy machine) may move meanwhile.
		assertThat(stat(PATHS.lockPath(a)).getCzxid()).as("the creates, in one transaction")
			.isEqualTo(stat(PATHS.lockPath(b)).getCzxid());
		long sessionId = client.getZookeeperClient().getZooKeeper().getSessionId();
		Map<String, Long> tokens = lock.heldLocks()
			.stream()
			.collect(Collectors.toMap((held) -> held.key(), (held) -> held.fencingToken()));
		for (String each : new String[] { a, b }) {
			Stat stat = new Stat();
			byte[] data = zooKeeper.store().getData().storingStatIn(stat).forPath(PATHS.lockPath(each));
			assertThat(new String(data, StandardCharsets.UTF_8)).isEqualTo("owner-1");
			assertThat(stat.getEphemeralOwner()).isEqualTo(sessionId);
			assertThat(stat.getVersion()).isZero();
			assertThat(tokens.get(each)).isEqualTo(stat.getCzxid());
		}
		assertThat(backend.acquireAllAttempts).hasValue(1);
		CompletableFuture<Long> aDeleted = deletionZxid(PATHS.lockPath(a));
		CompletableFuture<Long> bDeleted = deletionZxid(PATHS.lockPath(b));
		both.close();
		assertThat(aDeleted.get(10, TimeUnit.SECONDS)).as("the deletes, in one transaction")
			.isPositive()
			.isEqualTo(bDeleted.get(10, TimeUnit.SECONDS));
		assertThat(backend.releaseAllCalls).hasValue(1);
		assertThat(backend.releases).hasValue(1);
		assertThat(stat(PATHS.lockPath(a))).isNull();
		assertThat(stat(PATHS.lockPath(b))).isNull();
	}

	/**
	 * The zxid of the transaction that deletes the node at {@code path}, once it comes.
	 */
	private static CompletableFuture<Long> deletionZxid(String path) throws Exception {
		CompletableFuture<Long> deleted = new CompletableFuture<>();
		zooKeeper.store().getZookeeperClient().getZooKeeper().exists(path, (event) -> {
			if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
				deleted.complete(event.getZxid());
			}
			else {
				deleted.completeExceptionally(new IllegalStateException("Not a delete: " + event));
			}
		});
		return deleted;
	}

	@Test
	void aMissingRootIsCreatedAndNamespacesAreKept() throws Exception {
		String root = "/" + this.key.name() + "/locks";
		CuratorFramework client = newClient(CuratorFrameworkFactory.builder().namespace("app"));
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(new ZooKeeperLockBackend(client, root)));
		try (LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of("a"), LockRequest.of("b")))
			.orElseThrow()) {
			assertThat(stat("/app" + root + "/a").getEphemeralOwner()).isNotZero();
			assertThat(stat("/app" + root + "/b").getEphemeralOwner()).isNotZero();
			assertThat(zooKeeper.store().getChildren().forPath("/app" + root)).containsExactlyInAnyOrder("a", "b");
		}
		assertThat(stat("/app" + root + "/a")).isNull();
	}

	@Test
	void anEmptyQueueLeftAtAKeyIsDeletedAndBothKeysAreTaken() throws Exception {
		DefaultDistributeLock lock = newLock();
		String a = this.key.name() + ".a";
		String b = this.key.name() + ".b";
		// What a crashed fair holder leaves until the server's container reaper comes:
		// the queue, written twice by the transaction that created it.
		byte[] queueData = "distributelock queue".getBytes(StandardCharsets.UTF_8);
		zooKeeper.store()
			.create()
			.creatingParentContainersIfNeeded()
			.withMode(CreateMode.CONTAINER)
			.forPath(PATHS.lockPath(b), queueData);
		zooKeeper.store().setData().forPath(PATHS.lockPath(b), queueData);
		try (LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b))).orElseThrow()) {
			assertThat(stat(PATHS.lockPath(b)).getEphemeralOwner()).isNotZero();
		}
		assertThat(stat(PATHS.lockPath(b))).isNull();
	}

	@Test
	void aFairQueueAtAKeyIsWaitedForAndBothKeysAreTakenWhenItEnds() throws Exception {
		String a = this.key.name() + ".a";
		String b = this.key.name() + ".b";
		LockHandle fair = newLock().tryAcquire(LockRequest.of(b).withFair(true)).orElseThrow();
		CompletableFuture<Optional<LockHandle>> both = newLock().tryAcquireAsync(
				LockRequest.all(LockRequest.of(a), LockRequest.of(b)).withWaitTime(Duration.ofSeconds(20)));
		assertThat(both).isNotDone();
		fair.close();
		try (LockHandle taken = both.get(10, TimeUnit.SECONDS).orElseThrow()) {
			assertThat(stat(PATHS.lockPath(a)).getEphemeralOwner()).isNotZero();
			assertThat(stat(PATHS.lockPath(b)).getEphemeralOwner()).isNotZero();
		}
	}

	@Test
	void aKeyReleasedByItsValueElsewhereLeavesTheReleaseOfTheOthers() throws Exception {
		String a = this.key.name() + ".a";
		String b = this.key.name() + ".b";
		LockHandle both = newLock().tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b)).withOwner("value"))
			.orElseThrow();
		assertThat(newLock().releaseLock(a, "value")).isTrue();
		both.close();
		assertThat(stat(PATHS.lockPath(a))).isNull();
		assertThat(stat(PATHS.lockPath(b))).isNull();
	}

	private DefaultDistributeLock newLock() throws Exception {
		return this.closeables
			.add(new DefaultDistributeLock(new ZooKeeperLockBackend(newClient(CuratorFrameworkFactory.builder()))));
	}

	private CuratorFramework newClient(CuratorFrameworkFactory.Builder builder) throws Exception {
		return this.closeables
			.add(EmbeddedZooKeeper.newClient(builder.connectString(zooKeeper.connectString()), SESSION_TIMEOUT));
	}

	private static Stat stat(String path) throws Exception {
		return zooKeeper.store().checkExists().forPath(path);
	}

}
