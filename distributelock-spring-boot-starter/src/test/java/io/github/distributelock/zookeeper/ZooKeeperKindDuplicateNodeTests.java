package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.StreamSupport;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A second node of one claim, made when Curator sent the node's creation again after its
 * answer was lost with the connection, on a real server: the claim's listing finds it and
 * deletes it, and a delete lost with the connection too is sent again once the client is
 * connected. Left in the queue until the session ends, the copy sits before the nodes of
 * every later claim and keeps them out after the claim is released: a fair waiter
 * blocked, one permit fewer.
 */
class ZooKeeperKindDuplicateNodeTests {

	private static final ZooKeeperLockPaths PATHS = new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/** The queue whose creation answers as if the connection dropped. */
	private final AtomicReference<String> queue = new AtomicReference<>();

	/** The node whose creation's answer was dropped: the copy of the claim's node. */
	private final AtomicReference<String> copy = new AtomicReference<>();

	private final AtomicBoolean copyDeleteDropped = new AtomicBoolean();

	@ParameterizedTest
	@ValueSource(strings = { "fair", "permits" })
	void aCopyWhoseDeleteWasLostIsDeletedAndLetsTheNextClaimIn(String kind) throws Exception {
		String key = "duplicate." + kind + "." + System.nanoTime();
		String path = PATHS.lockPath(key);
		// One permit: the copy would be a holder of its own, as a fair copy is the
		// holder before the next claim.
		LockKind lockKind = kind.equals("fair") ? LockKind.FAIR : LockKind.permits(1);
		ZooKeeperLockBackend copying = this.closeables.add(new ZooKeeperLockBackend(droppingClient()));
		ZooKeeperLockBackend next = this.closeables
			.add(new ZooKeeperLockBackend(this.closeables.add(zooKeeper.newClient(Duration.ofSeconds(10)))));
		Claim claim = new Claim(key, "copied", null, lockKind);
		Claim later = new Claim(key, "later", null, lockKind);
		this.queue.set(path);

		assertThat(attempt(copying, claim).acquired()).isTrue();
		assertThat(this.copy.get()).as("the node whose creation's answer was dropped").isNotNull();
		AcquireResult waiting = attempt(next, later);
		assertThat(waiting.acquired()).isFalse();
		assertThat(copying.release(claim).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();

		assertThat(acquireWithin(next, later, waiting, Duration.ofSeconds(10)))
			.as("the next claim, once the copied claim is released")
			.isTrue();
		assertThat(this.copyDeleteDropped).as("the copy's delete dropped").isTrue();
		assertThat(zooKeeper.children(path)).hasSize(1);
		assertThat(next.release(later).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
	}

	/** Attempts again whenever the last attempt's wait ends, as the engine does. */
	private static boolean acquireWithin(ZooKeeperLockBackend backend, Claim claim, AcquireResult first, Duration wait)
			throws Exception {
		Deadline deadline = Deadline.after(wait);
		AcquireResult last = first;
		while (!last.acquired() && !deadline.hasPassed()) {
			backend.awaitRelease(claim, last, deadline)
				.toCompletableFuture()
				.get(wait.toSeconds() * 2, TimeUnit.SECONDS);
			last = attempt(backend, claim);
		}
		return last.acquired();
	}

	private static AcquireResult attempt(ZooKeeperLockBackend backend, Claim claim) throws Exception {
		return backend.tryAcquire(claim, Duration.ofSeconds(30)).toCompletableFuture().get(10, TimeUnit.SECONDS);
	}

	/**
	 * A client whose handle drops the answer of the first transaction that creates the
	 * armed queue with a node in it, as ZooKeeper answers a request in flight when the
	 * connection drops, so that Curator sends it again (it then finds the queue and adds
	 * a second node to it); and drops the first delete of the first node unsent.
	 */
	private CuratorFramework droppingClient() throws Exception {
		CuratorFramework client = EmbeddedZooKeeper.newClient(CuratorFrameworkFactory.builder()
			.connectString(zooKeeper.connectString())
			.zookeeperFactory((connectString, sessionTimeout, watcher, canBeReadOnly) -> new ZooKeeper(connectString,
					sessionTimeout, watcher, canBeReadOnly) {

				@Override
				public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback callback, Object context) {
					AsyncCallback.MultiCallback answer = callback;
					String armed = ZooKeeperKindDuplicateNodeTests.this.queue.get();
					boolean createsQueue = StreamSupport.stream(ops.spliterator(), false)
						.anyMatch((op) -> op.getType() == ZooDefs.OpCode.createContainer && op.getPath().equals(armed));
					if (createsQueue && ZooKeeperKindDuplicateNodeTests.this.copy.get() == null) {
						answer = (code, path, answerContext, results) -> {
							if (code != KeeperException.Code.OK.intValue()) {
								callback.processResult(code, path, answerContext, results);
								return;
							}
							ZooKeeperKindDuplicateNodeTests.this.copy.compareAndSet(null,
									((OpResult.CreateResult) results.get(1)).getPath());
							callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), path, answerContext,
									null);
						};
					}
					super.multi(ops, answer, context);
				}

				@Override
				public void delete(String path, int version, AsyncCallback.VoidCallback callback, Object context) {
					if (path.equals(ZooKeeperKindDuplicateNodeTests.this.copy.get())
							&& ZooKeeperKindDuplicateNodeTests.this.copyDeleteDropped.compareAndSet(false, true)) {
						callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), path, context);
						return;
					}
					super.delete(path, version, callback, context);
				}

			}), Duration.ofSeconds(10));
		return this.closeables.add(client);
	}

}
