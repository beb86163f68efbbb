package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Many acquisitions of each kind of lock leave no node behind: not a held or queued node
 * (each claim deletes its own), and not a queue (its last member deletes it, and the
 * server reaps one that a race left empty). Each run is logged with its count of
 * transactions, which the server's zxid counts.
 * <p>
 * {@code -Ddistributelock.zookeeper.cycles=100000} runs more cycles than the default.
 */
class ZooKeeperLockKindsCyclesTests {

	private static final Log logger = LogFactory.getLog(ZooKeeperLockKindsCyclesTests.class);

	private static final int CYCLES = Integer.getInteger("distributelock.zookeeper.cycles", 2_000);

	private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

	/** A server of its own: each run counts the server's transactions. */
	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = EmbeddedZooKeeperExtension.ofItsOwn();

	private final Closeables closeables = new Closeables();

	@AfterEach
	void closeAll() throws Exception {
		this.closeables.close();
	}

	/**
	 * One caller, one key: every cycle creates the queue with its node and deletes both,
	 * two transactions, as a plain lock's create and delete.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "exclusive", "fair", "read", "write", "permits" })
	void uncontendedCyclesCostTwoWritesAndLeaveNothing(String kind) throws Exception {
		String root = "/uncontended-" + kind;
		// A persistent root, which the server's reaper of empty containers leaves alone,
		// so that its transactions are not counted.
		zooKeeper.store().create().forPath(root);
		DefaultDistributeLock lock = newLock(root);
		int cycles = Math.max(100, CYCLES / 10);
		long firstZxid = ZooKeeperTree.lastZxid(zooKeeper);
		long start = System.nanoTime();
		for (int i = 0; i < cycles; i++) {
			lock.tryAcquire(request(kind, "key", i, Duration.ZERO)).orElseThrow().close();
		}
		long elapsed = System.nanoTime() - start;
		long transactions = ZooKeeperTree.lastZxid(zooKeeper) - firstZxid;
		logger.info(String.format(Locale.ROOT,
				"%s uncontended: %,d cycles in %,d ms (%.0f us each), %.2f " + "transactions per cycle, %d nodes left",
				kind, cycles, TimeUnit.NANOSECONDS.toMillis(elapsed), elapsed / 1000.0 / cycles,
				(double) transactions / cycles, ZooKeeperTree.nodesBelow(zooKeeper.store(), root)));
		// The server's reaper of empty containers (every 500 ms here) can catch a queue
		// between the two deletes of its release, which the server applies one after the
		// other: its delete of the queue then fails, and a failed write takes a zxid too.
		long reaperPasses = TimeUnit.NANOSECONDS.toMillis(elapsed) / 500 + 1;
		assertThat(transactions).isBetween(2L * cycles, 2L * cycles + reaperPasses);
		assertThat(ZooKeeperTree.nodesBelow(zooKeeper.store(), root)).isZero();
		zooKeeper.store().delete().forPath(root);
	}

	/**
	 * Two instances of two threads each on two keys, read and write mixed (one write in
	 * four), one attempt in ten not waiting so that waiters also give up.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "fair", "read/write", "write", "permits" })
	void contendedCyclesLeaveNoNodeBehind(String kind) throws Exception {
		String root = "/contended-" + kind.replace('/', '-');
		DefaultDistributeLock[] instances = { newLock(root), newLock(root) };
		int threads = 2;
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger givenUp = new AtomicInteger();
		ExecutorService callers = this.closeables.add(new ExecutorServiceCloser(Executors.newCachedThreadPool()))
			.executor();
		long firstZxid = ZooKeeperTree.lastZxid(zooKeeper);
		long start = System.nanoTime();
		List<Future<?>> workers = new ArrayList<>();
		int share = CYCLES / (instances.length * threads);
		for (DefaultDistributeLock lock : instances) {
			for (int t = 0; t < threads; t++) {
				workers.add(callers.submit(() -> {
					for (int i = 0; i < share; i++) {
						Duration wait = (i % 10 == 0) ? Duration.ZERO : Duration.ofSeconds(60);
						try (LockHandle handle = lock.tryAcquire(request(kind, "key-" + (i % 2), i, wait))
							.orElse(null)) {
							if (handle == null) {
								givenUp.incrementAndGet();
							}
							else {
								acquired.incrementAndGet();
							}
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(30, TimeUnit.MINUTES);
		}
		long elapsed = System.nanoTime() - start;
		long transactions = ZooKeeperTree.lastZxid(zooKeeper) - firstZxid;
		int queuedAtEnd = queuedNodes(root);
		int queuesAtEnd = ZooKeeperTree.children(zooKeeper.store(), root).size();
		logger.info(String.format(Locale.ROOT,
				"%s contended: %,d acquisitions and %,d attempts given up in %,d ms, %.2f transactions per "
						+ "acquisition; at the end %d queue nodes and %d queues left",
				kind, acquired.get(), givenUp.get(), TimeUnit.NANOSECONDS.toMillis(elapsed),
				(double) transactions / acquired.get(), queuedAtEnd, queuesAtEnd));
		assertThat(acquired.get() + givenUp.get()).isEqualTo(share * instances.length * threads);
		// A caller that gives up hears it just before its node is deleted.
		await().atMost(Duration.ofSeconds(10)).until(() -> queuedNodes(root) == 0);
		// A queue left empty by members leaving at once goes with the server's reaper,
		// and so does the root, whose deletion the next test must not count.
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.store().checkExists().forPath(root) == null);
	}

	/**
	 * Threads of one instance sharing its session, all waiting on one fair key, as in the
	 * benchmark's shape: the queue never empties, so an acquisition costs its node's
	 * create and delete, and the hand-off is the delete.
	 */
	@Test
	void sustainedFairContentionCostsACreateAndADeletePerAcquisition() throws Exception {
		String root = "/sustained-fair";
		DefaultDistributeLock lock = newLock(root);
		int threads = 4;
		int share = CYCLES / threads;
		ExecutorService callers = this.closeables.add(new ExecutorServiceCloser(Executors.newCachedThreadPool()))
			.executor();
		lock.tryAcquire(request("fair", "key", 0, Duration.ZERO)).orElseThrow().close();
		long firstZxid = ZooKeeperTree.lastZxid(zooKeeper);
		long start = System.nanoTime();
		List<Future<?>> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			workers.add(callers.submit(() -> {
				for (int i = 0; i < share; i++) {
					lock.tryAcquire(request("fair", "key", i, Duration.ofSeconds(60))).orElseThrow().close();
				}
				return null;
			}));
		}
		for (Future<?> worker : workers) {
			worker.get(30, TimeUnit.MINUTES);
		}
		long elapsed = System.nanoTime() - start;
		long transactions = ZooKeeperTree.lastZxid(zooKeeper) - firstZxid;
		logger.info(String.format(Locale.ROOT,
				"fair sustained, %d threads of one session: %,d acquisitions in %,d ms, %.3f transactions per "
						+ "acquisition",
				threads, share * threads, TimeUnit.NANOSECONDS.toMillis(elapsed),
				(double) transactions / (share * threads)));
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.store().checkExists().forPath(root) == null);
	}

	private int queuedNodes(String root) throws Exception {
		int nodes = 0;
		for (String queue : ZooKeeperTree.children(zooKeeper.store(), root)) {
			nodes += ZooKeeperTree.children(zooKeeper.store(), root + "/" + queue).size();
		}
		return nodes;
	}

	private static LockRequest request(String kind, String key, int cycle, Duration wait) {
		LockRequest request = LockRequest.of(key).withWaitTime(wait);
		return switch (kind) {
			case "exclusive" -> request;
			case "fair" -> request.withFair(true);
			case "read" -> request.withMode(LockMode.READ);
			case "write" -> request.withMode(LockMode.WRITE);
			case "read/write" -> request.withMode((cycle % 4 == 0) ? LockMode.WRITE : LockMode.READ);
			case "permits" -> request.withPermits(2);
			default -> throw new IllegalArgumentException(kind);
		};
	}

	private DefaultDistributeLock newLock(String root) throws Exception {
		CuratorFramework client = this.closeables.add(zooKeeper.newClient(SESSION_TIMEOUT));
		ZooKeeperLockBackend backend = this.closeables.add(new ZooKeeperLockBackend(client, root));
		return this.closeables.add(new DefaultDistributeLock(backend));
	}

	private record ExecutorServiceCloser(ExecutorService executor) implements AutoCloseable {

		@Override
		public void close() {
			this.executor.shutdownNow();
		}

	}

}
