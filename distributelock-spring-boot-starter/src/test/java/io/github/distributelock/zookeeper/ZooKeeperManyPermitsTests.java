package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Permits of a count above {@link ZooKeeperKindQueue#MOST_WATCHED_NODES}, on a real
 * server: a waiter watches every change of the queue rather than the nodes before it, and
 * is let in by any holder's release, never past the count.
 */
class ZooKeeperManyPermitsTests {

	private static final int PERMITS = ZooKeeperKindQueue.MOST_WATCHED_NODES + 1;

	private static final Duration WAIT = Duration.ofSeconds(30);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void waitersOfManyPermitsAreLetInByAnyReleaseAndNeverPastTheCount() throws Exception {
		String key = "many-permits." + System.nanoTime();
		String queue = ZooKeeperLockBackend.DEFAULT_ROOT + "/" + key;
		LockRequest permit = LockRequest.of(key).withPermits(PERMITS);
		DefaultDistributeLock holders = newLock();
		DefaultDistributeLock waiters = newLock();
		List<LockHandle> held = new ArrayList<>();
		for (int i = 0; i < PERMITS; i++) {
			held.add(holders.tryAcquireAsync(permit).get(10, TimeUnit.SECONDS).orElseThrow());
		}
		CompletableFuture<Optional<LockHandle>> first = waiters.tryAcquireAsync(permit.withWaitTime(WAIT));
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(queue).size() == PERMITS + 1);
		CompletableFuture<Optional<LockHandle>> second = waiters.tryAcquireAsync(permit.withWaitTime(WAIT));
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(queue).size() == PERMITS + 2);
		assertThat(first).isNotDone();
		assertThat(second).isNotDone();

		// A holder in the middle of the queue gives its permit back: the first waiter
		// takes it, long before its wait time would end, and the second still waits.
		held.remove(PERMITS / 2).close();
		LockHandle firstIn = first.get(WAIT.toSeconds() / 2, TimeUnit.SECONDS).orElseThrow();
		assertThat(second).isNotDone();
		held.remove(0).close();
		LockHandle secondIn = second.get(WAIT.toSeconds() / 2, TimeUnit.SECONDS).orElseThrow();
		assertThat(zooKeeper.children(queue)).hasSize(PERMITS);

		firstIn.close();
		secondIn.close();
		for (LockHandle handle : held) {
			handle.close();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> zooKeeper.children(queue).isEmpty());
	}

	private DefaultDistributeLock newLock() throws Exception {
		ZooKeeperLockBackend backend = this.closeables
			.add(new ZooKeeperLockBackend(this.closeables.add(zooKeeper.newClient(Duration.ofSeconds(10)))));
		return this.closeables
			.add(new DefaultDistributeLock(backend, Duration.ofSeconds(30), false, LockEventListener.NONE, null));
	}

}
