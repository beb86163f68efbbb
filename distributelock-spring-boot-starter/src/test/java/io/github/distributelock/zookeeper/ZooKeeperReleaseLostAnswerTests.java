package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.StreamSupport;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.HandOverLockBackend;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Releases and hand-overs whose write reached the server and whose answer was lost with
 * the connection, on a real server: the client's handle applies the delete and answers
 * the caller as ZooKeeper answers a request in flight when the connection drops. The
 * release is sent again, finds the node gone by its own delete, and answers that it
 * released the lock, which the engine would otherwise report as lost while held.
 */
class ZooKeeperReleaseLostAnswerTests {

	private static final ZooKeeperLockPaths PATHS = new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final AtomicBoolean dropNextAnswer = new AtomicBoolean();

	private final AtomicBoolean answerDropped = new AtomicBoolean();

	/** Whether deletes and transactions fail as if the connection dropped, unsent. */
	private final AtomicBoolean refuseWrites = new AtomicBoolean();

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
		assertReleasedThoughItsAnswerIsLost(backend, claim, kind.equals("fair with a waiter"));
	}

	/**
	 * A release that failed after its retries (its deletes unsent) forgets the claim's
	 * node, and the engine sends it again later, as it does every failed release: that
	 * release finds the claim's node by its name, and its delete was applied and its
	 * answer lost; sent again, it finds nothing of the owner's and answers released.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "fair alone", "fair with a waiter" })
	void aReleaseByTheOwnersNameWhoseAnswerWasLostAnswersReleased(String kind) throws Exception {
		String key = "lost-answer.by-name." + kind.replace(' ', '-') + "." + System.nanoTime();
		ZooKeeperLockBackend backend = this.closeables.add(new ZooKeeperLockBackend(droppingClient()));
		Claim claim = new Claim(key, "holder", null, LockKind.FAIR);
		assertThat(attempt(backend, claim)).isTrue();
		if (kind.equals("fair with a waiter")) {
			ZooKeeperLockBackend other = this.closeables
				.add(new ZooKeeperLockBackend(this.closeables.add(zooKeeper.newClient(Duration.ofSeconds(10)))));
			assertThat(attempt(other, new Claim(key, "waiter", null, LockKind.FAIR))).isFalse();
		}
		this.refuseWrites.set(true);
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(() -> backend.release(claim).toCompletableFuture().get(10, TimeUnit.SECONDS));
		this.refuseWrites.set(false);
		assertThat(zooKeeper.children(PATHS.lockPath(key)))
			.anyMatch((node) -> node.contains(ZooKeeperKindNode.ownerId("holder")));
		assertReleasedThoughItsAnswerIsLost(backend, claim, kind.equals("fair with a waiter"));
	}

	/**
	 * Releases {@code claim} with the answer of its delete dropped: it answers released,
	 * and the holder's node is gone (the waiter's left, if there is one).
	 */
	private void assertReleasedThoughItsAnswerIsLost(ZooKeeperLockBackend backend, Claim claim, boolean withAWaiter)
			throws Exception {
		this.dropNextAnswer.set(true);

		boolean released = backend.release(claim).toCompletableFuture().get(10, TimeUnit.SECONDS);

		assertThat(this.answerDropped).as("a delete applied whose answer was dropped").isTrue();
		assertThat(released).as("released").isTrue();
		if (withAWaiter) {
			assertThat(zooKeeper.children(PATHS.lockPath(claim.key()))).hasSize(1)
				.allMatch((node) -> !node.contains(ZooKeeperKindNode.ownerId(claim.owner())));
		}
		else {
			assertThat(zooKeeper.store().checkExists().forPath(PATHS.lockPath(claim.key()))).isNull();
		}
	}

	/**
	 * The hand-over's write (two in one {@code multi} for a node's first hand-over, one
	 * {@code setData} after) reached the server and its answer was lost: sent again, the
	 * hand-over finds the next owner in the node of its session, and answers that the
	 * holder's lock was handed over rather than lost.
	 */
	@ParameterizedTest
	@ValueSource(ints = { 0, 1 })
	void aHandOverWhoseAnswerWasLostAnswersHandedOver(int earlierHandOvers) throws Exception {
		String key = "lost-answer.hand-over." + earlierHandOvers + "." + System.nanoTime();
		ZooKeeperLockBackend backend = this.closeables.add(new ZooKeeperLockBackend(droppingClient()));
		Claim holder = new Claim(key, "first");
		assertThat(attempt(backend, holder)).isTrue();
		for (int i = 0; i < earlierHandOvers; i++) {
			Claim earlier = new Claim(key, "earlier-" + i);
			assertThat(handOver(backend, holder, earlier).released()).isTrue();
			holder = earlier;
		}
		Claim next = new Claim(key, "next");
		this.dropNextAnswer.set(true);

		HandOverLockBackend.HandOver handOver = handOver(backend, holder, next);

		assertThat(this.answerDropped).as("a write applied whose answer was dropped").isTrue();
		assertThat(handOver.released()).as("the holder's lock handed over").isTrue();
		assertThat(handOver.next().acquired()).isTrue();
		assertThat(handOver.next().fencingToken())
			.isEqualTo(zooKeeper.store().checkExists().forPath(PATHS.lockPath(key)).getMzxid());
		assertThat(backend.release(next).toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
	}

	/**
	 * The transaction of a multi-key release's deletes reached the server and its answer
	 * was lost: sent again, the release reads the nodes gone by its own deletes.
	 */
	@Test
	void aMultiKeyReleaseWhoseAnswerWasLostAnswersReleased() throws Exception {
		String key = "lost-answer.multi-key." + System.nanoTime();
		ZooKeeperLockBackend backend = this.closeables.add(new ZooKeeperLockBackend(droppingClient()));
		List<Claim> claims = List.of(new Claim(key + ".a", "holder"), new Claim(key + ".b", "holder"));
		assertThat(backend.tryAcquireAll(claims, List.of(Duration.ofSeconds(30), Duration.ofSeconds(30)))
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS)
			.acquired()).isTrue();
		this.dropNextAnswer.set(true);

		List<Boolean> released = backend.releaseAll(claims).toCompletableFuture().get(10, TimeUnit.SECONDS);

		assertThat(this.answerDropped).as("a transaction applied whose answer was dropped").isTrue();
		assertThat(released).as("released").containsExactly(true, true);
		for (Claim claim : claims) {
			assertThat(zooKeeper.store().checkExists().forPath(PATHS.lockPath(claim.key()))).isNull();
		}
	}

	private static HandOverLockBackend.HandOver handOver(ZooKeeperLockBackend backend, Claim holder, Claim next)
			throws Exception {
		return backend.handOver(holder, next, Duration.ofSeconds(30)).toCompletableFuture().get(10, TimeUnit.SECONDS);
	}

	private static boolean attempt(ZooKeeperLockBackend backend, Claim claim) throws Exception {
		return backend.tryAcquire(claim, Duration.ofSeconds(30))
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS)
			.acquired();
	}

	/**
	 * A client whose handle drops the answer of the next delete, write or transaction,
	 * once armed; and answers every delete and transaction of writes unsent, while
	 * refusing.
	 */
	private CuratorFramework droppingClient() throws Exception {
		CuratorFramework client = EmbeddedZooKeeper.newClient(CuratorFrameworkFactory.builder()
			.connectString(zooKeeper.connectString())
			.zookeeperFactory((connectString, sessionTimeout, watcher, canBeReadOnly) -> new ZooKeeper(connectString,
					sessionTimeout, watcher, canBeReadOnly) {

				@Override
				public void delete(String path, int version, AsyncCallback.VoidCallback callback, Object context) {
					if (ZooKeeperReleaseLostAnswerTests.this.refuseWrites.get()) {
						callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), path, context);
						return;
					}
					AsyncCallback.VoidCallback answer = callback;
					if (ZooKeeperReleaseLostAnswerTests.this.dropNextAnswer.compareAndSet(true, false)) {
						answer = (code, deleted, answerContext) -> {
							ZooKeeperReleaseLostAnswerTests.this.answerDropped.set(code == 0);
							callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), deleted,
									answerContext);
						};
					}
					super.delete(path, version, answer, context);
				}

				@Override
				public void setData(String path, byte[] data, int version, AsyncCallback.StatCallback callback,
						Object context) {
					AsyncCallback.StatCallback answer = callback;
					if (ZooKeeperReleaseLostAnswerTests.this.dropNextAnswer.compareAndSet(true, false)) {
						answer = (code, written, answerContext, stat) -> {
							ZooKeeperReleaseLostAnswerTests.this.answerDropped.set(code == 0);
							callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), written,
									answerContext, null);
						};
					}
					super.setData(path, data, version, answer, context);
				}

				@Override
				public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback callback, Object context) {
					AsyncCallback.MultiCallback answer = callback;
					// Reads in one request are answered by the connected server, and
					// are sent again anyway.
					boolean writes = StreamSupport.stream(ops.spliterator(), false)
						.anyMatch((op) -> op.getType() != ZooDefs.OpCode.getData);
					if (writes && ZooKeeperReleaseLostAnswerTests.this.refuseWrites.get()) {
						callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), null, context, null);
						return;
					}
					if (writes && ZooKeeperReleaseLostAnswerTests.this.dropNextAnswer.compareAndSet(true, false)) {
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
