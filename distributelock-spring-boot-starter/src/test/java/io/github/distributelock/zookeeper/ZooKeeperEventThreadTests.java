package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AbstractStoreAnswerThreadTests;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.server.ZooKeeperThread;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Blocking calls made on ZooKeeper's event thread (a watcher, a Curator callback, a
 * pipeline that goes on after a locked {@code Mono} or a non-blocking acquisition), whose
 * answers that very thread has to deliver: an acquisition is refused at once with an
 * error that says what to do, instead of parking the thread for ever and every caller of
 * the client with it; a release is sent without waiting for its answer.
 */
class ZooKeeperEventThreadTests extends AbstractStoreAnswerThreadTests {

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	/** The client of the first lock made, whose event thread runs the work. */
	private CuratorFramework client;

	@Test
	void aBlockingAcquisitionOnTheEventThreadIsRefusedAndTheClientGoesOnServing() throws Exception {
		DefaultDistributeLock lock = newLock();
		CompletableFuture<Object> outcome = onTheEventThread(
				(thread) -> lock.tryAcquire(LockRequest.of("event.thread").withWaitTime(Duration.ofSeconds(1))));
		assertThat(outcome.get(15, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
			.asString()
			.contains("Could not acquire lock 'event.thread' in zookeeper",
					"the thread that delivers the store's answers", "tryAcquireAsync");
		assertThat(lock.tryAcquire(LockRequest.of("event.thread").withWaitTime(Duration.ofSeconds(5))))
			.hasValueSatisfying(LockHandle::close);
	}

	@Override
	protected LockBackend newBackend() throws Exception {
		CuratorFramework client = this.closeables
			.add(EmbeddedZooKeeper.newClient(zooKeeper.connectString(), Duration.ofSeconds(10)));
		this.client = (this.client != null) ? this.client : client;
		return this.closeables.add(new ZooKeeperLockBackend(client));
	}

	@Override
	protected boolean isStoreClientThread(Thread thread) {
		return thread instanceof ZooKeeperThread;
	}

	private DefaultDistributeLock newLock() throws Exception {
		return this.closeables.add(new DefaultDistributeLock(newBackend()));
	}

	/**
	 * Runs {@code work} in a watcher of the first lock's client, on its event thread;
	 * completes with what it returned or threw.
	 */
	private CompletableFuture<Object> onTheEventThread(Work work) throws Exception {
		String path = "/event-thread-" + System.nanoTime();
		this.client.create().forPath(path);
		CompletableFuture<Object> outcome = new CompletableFuture<>();
		this.client.getData().usingWatcher((Watcher) (event) -> {
			try {
				outcome.complete(work.apply(Thread.currentThread()));
			}
			catch (Throwable ex) {
				outcome.complete(ex);
			}
		}).forPath(path);
		this.client.setData().forPath(path, new byte[] { 1 });
		return outcome;
	}

	@FunctionalInterface
	private interface Work {

		Object apply(Thread thread) throws Exception;

	}

}
