package io.github.distributelock.fault;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.zookeeper.EmbeddedZooKeeper;
import io.github.distributelock.zookeeper.EmbeddedZooKeeperExtension;
import io.github.distributelock.zookeeper.ZooKeeperLockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Connection cuts between a Curator client and a real ZooKeeper server: the lease is the
 * session timeout.
 */
class ZooKeeperConnectionCutTests extends AbstractConnectionCutTests {

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@Override
	protected LockBackend newBackend(int port) throws Exception {
		return newBackend(port, LEASE);
	}

	@Override
	protected LockBackend newLongLeaseBackend(int port) throws Exception {
		return newBackend(port, Duration.ofSeconds(60));
	}

	/** A quick client: its 2 s connection timeout is below the lease. */
	private LockBackend newBackend(int port, Duration sessionTimeout) throws Exception {
		return new ZooKeeperLockBackend(
				closeAfter(EmbeddedZooKeeper.newQuickClient("127.0.0.1:" + port, sessionTimeout)));
	}

	@Override
	protected int storePort() {
		return zooKeeper.port();
	}

	@Override
	protected boolean isLocked(String key) throws Exception {
		return zooKeeper.store().checkExists().forPath(ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key) != null;
	}

	@Override
	protected String backendName() {
		return "ZooKeeper";
	}

	/**
	 * A waiter's node that ZooKeeper created but whose answer was lost with the
	 * connection: Curator creates the node again (a sequential node of another number),
	 * so the first one stays in the queue, ahead of the waiter's own, unless the claim
	 * deletes it. Left there, it would keep the key from every later caller for as long
	 * as the session lives.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "fair", "write", "permits" })
	void kindWaiterWhoseNodeWasCreatedButItsAnswerLostLeavesNoNodeBehind(String kind) throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		// Retries that outlast the reconnection: Curator sends the create again.
		LockBackend waiterBackend = closeAfter(new ZooKeeperLockBackend(
				closeAfter(EmbeddedZooKeeper.newClient("127.0.0.1:" + proxy.port(), Duration.ofSeconds(60)))));
		DefaultDistributeLock waiterLock = closeAfter(
				new DefaultDistributeLock(waiterBackend, Duration.ofSeconds(60), false, LockEventListener.NONE, null));
		DefaultDistributeLock holderLock = closeAfter(new DefaultDistributeLock(newBackend(storePort()),
				Duration.ofSeconds(60), false, LockEventListener.NONE, null));
		String key = "answer-lost-" + kind + "." + System.nanoTime();
		LockRequest request = switch (kind) {
			case "fair" -> LockRequest.of(key).withFair(true);
			case "write" -> LockRequest.of(key).withMode(LockMode.WRITE);
			default -> LockRequest.of(key).withPermits(1);
		};
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		// Opens the connection through the proxy first.
		waiterLock.tryAcquire(LockRequest.of(key + ".warm-up")).orElseThrow().close();
		LockHandle held = holderLock.tryAcquire(request).orElseThrow();
		proxy.latency(Duration.ofSeconds(1));
		CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(() -> {
			try {
				return waiterLock.tryAcquire(request.withWaitTime(Duration.ofSeconds(30))).orElseThrow();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		try {
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(5))
				.until(() -> zooKeeper.children(queue).size() == 2);
			List<String> before = zooKeeper.children(queue);
			proxy.cut();
			proxy.latency(Duration.ZERO);
			proxy.restore();
			// The node is made again, and the waiter keeps one node only.
			await().atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(zooKeeper.children(queue)).hasSize(2).isNotEqualTo(before));
		}
		finally {
			proxy.latency(Duration.ZERO);
			proxy.restore();
		}
		held.close();
		try (LockHandle taken = waiter.get(40, TimeUnit.SECONDS)) {
			assertThat(taken.isHeld()).isTrue();
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(zooKeeper.children(queue)).as("nodes left in the queue").isEmpty());
		try (LockHandle again = holderLock.tryAcquire(request.withWaitTime(Duration.ofSeconds(5))).orElseThrow()) {
			assertThat(again.isHeld()).isTrue();
		}
	}

	/**
	 * The first claim of a free key creates the queue and its node in one transaction:
	 * sent again after its answer was lost, the transaction finds the queue and the claim
	 * adds a second node behind its first, which it must delete, or hold the key twice
	 * and leave one behind at its release.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "fair", "read", "permits" })
	void kindClaimWhoseQueueWasCreatedButItsAnswerLostLeavesNoNodeBehind(String kind) throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		LockBackend backend = closeAfter(new ZooKeeperLockBackend(
				closeAfter(EmbeddedZooKeeper.newClient("127.0.0.1:" + proxy.port(), Duration.ofSeconds(60)))));
		DefaultDistributeLock lock = closeAfter(
				new DefaultDistributeLock(backend, Duration.ofSeconds(60), false, LockEventListener.NONE, null));
		DefaultDistributeLock other = closeAfter(new DefaultDistributeLock(newBackend(storePort()),
				Duration.ofSeconds(60), false, LockEventListener.NONE, null));
		String key = "answer-lost-queue-" + kind + "." + System.nanoTime();
		LockRequest request = switch (kind) {
			case "fair" -> LockRequest.of(key).withFair(true);
			case "read" -> LockRequest.of(key).withMode(LockMode.READ);
			default -> LockRequest.of(key).withPermits(1);
		};
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		lock.tryAcquire(LockRequest.of(key + ".warm-up")).orElseThrow().close();
		proxy.latency(Duration.ofSeconds(1));
		CompletableFuture<LockHandle> caller = CompletableFuture.supplyAsync(() -> {
			try {
				return lock.tryAcquire(request.withWaitTime(Duration.ofSeconds(30))).orElseThrow();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		try {
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(5))
				.until(() -> zooKeeper.children(queue).size() == 1);
			proxy.cut();
			proxy.latency(Duration.ZERO);
			proxy.restore();
		}
		finally {
			proxy.latency(Duration.ZERO);
			proxy.restore();
		}
		try (LockHandle taken = caller.get(40, TimeUnit.SECONDS)) {
			assertThat(taken.isHeld()).isTrue();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(zooKeeper.children(queue)).as("the claim's nodes").hasSize(1));
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(zooKeeper.children(queue)).as("nodes left in the queue").isEmpty());
		try (LockHandle again = other.tryAcquire(request.withWaitTime(Duration.ofSeconds(5))).orElseThrow()) {
			assertThat(again.isHeld()).isTrue();
		}
	}

}
