package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Releases whose delete reached the server and whose answer was lost with the connection,
 * on a real server: the client's handle applies the delete and answers the caller as
 * ZooKeeper answers a request in flight when the connection drops. The release is sent
 * again, finds the node gone by its own delete, and answers that it released the lock,
 * which the engine would otherwise report as lost while held.
 */
class ZooKeeperReleaseLostAnswerTests {

	private static final ZooKeeperLockPaths PATHS = new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final AtomicBoolean dropNextDeleteAnswer = new AtomicBoolean();

	private final AtomicBoolean answerDropped = new AtomicBoolean();

	@ParameterizedTest
	@ValueSource(strings = { "exclusive", "fair alone", "fair with a waiter" })
	void aReleaseWhoseAnswerWasLostAnswersReleased(String kind) throws Exception {
		String key = "lost-answer." + kind + "." + System.nanoTime();
		ZooKeeperLockBackend backend = this.closeables.add(new ZooKeeperLockBackend(droppingClient()));
		LockKind lockKind = kind.equals("exclusive") ? LockKind.EXCLUSIVE : LockKind.FAIR;
		Claim claim = new Claim(key, "holder", null, lockKind);
		assertThat(attempt(backend, claim)).isTrue();
		if (kind.equals("fair with a waiter")) {
			assertThat(attempt(backend, new Claim(key, "waiter", null, lockKind))).isFalse();
		}
		this.dropNextDeleteAnswer.set(true);

		boolean released = backend.release(claim).toCompletableFuture().get(10, TimeUnit.SECONDS);

		assertThat(this.answerDropped).as("a delete applied whose answer was dropped").isTrue();
		assertThat(released).as("released").isTrue();
		if (kind.equals("fair with a waiter")) {
			assertThat(zooKeeper.children(PATHS.lockPath(key))).hasSize(1)
				.allMatch((node) -> !node.contains(ZooKeeperKindNode.ownerId("holder")));
		}
		else {
			assertThat(zooKeeper.store().checkExists().forPath(PATHS.lockPath(key))).isNull();
		}
	}

	private static boolean attempt(ZooKeeperLockBackend backend, Claim claim) throws Exception {
		return backend.tryAcquire(claim, Duration.ofSeconds(30))
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS)
			.acquired();
	}

	/** A client whose handle drops the answer of the next delete, once armed. */
	private CuratorFramework droppingClient() throws Exception {
		CuratorFramework client = EmbeddedZooKeeper.newClient(CuratorFrameworkFactory.builder()
			.connectString(zooKeeper.connectString())
			.zookeeperFactory((connectString, sessionTimeout, watcher, canBeReadOnly) -> new ZooKeeper(connectString,
					sessionTimeout, watcher, canBeReadOnly) {

				@Override
				public void delete(String path, int version, AsyncCallback.VoidCallback callback, Object context) {
					AsyncCallback.VoidCallback answer = callback;
					if (ZooKeeperReleaseLostAnswerTests.this.dropNextDeleteAnswer.compareAndSet(true, false)) {
						answer = (code, deleted, answerContext) -> {
							ZooKeeperReleaseLostAnswerTests.this.answerDropped.set(code == 0);
							callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), deleted,
									answerContext);
						};
					}
					super.delete(path, version, answer, context);
				}

				@Override
				public void multi(Iterable<org.apache.zookeeper.Op> ops, AsyncCallback.MultiCallback callback,
						Object context) {
					AsyncCallback.MultiCallback answer = callback;
					if (ZooKeeperReleaseLostAnswerTests.this.dropNextDeleteAnswer.compareAndSet(true, false)) {
						answer = (code, path, answerContext, results) -> {
							ZooKeeperReleaseLostAnswerTests.this.answerDropped.set(code == 0);
							callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), path, answerContext,
									null);
						};
					}
					super.multi(ops, answer, context);
				}

			}), Duration.ofSeconds(10));
		return this.closeables.add(client);
	}

}
