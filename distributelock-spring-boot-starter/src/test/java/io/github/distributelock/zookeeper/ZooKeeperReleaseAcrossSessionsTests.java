package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.StreamSupport;

import io.github.distributelock.Closeables;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.AsyncCallback;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release whose deletes lose their answers on two sessions, on a real server: the first
 * on the session that holds the lock's nodes, which the client then gives up (as Curator
 * does after a session timeout spent disconnected; the server keeps it), the second on
 * the client's new session, for nodes of the old one. Neither delete ran; the server ends
 * the old session and its nodes with it. A lost answer tells what happened only on the
 * node's own session, so the release must answer that it released nothing (the lock was
 * lost), whichever kind of lock it releases.
 */
class ZooKeeperReleaseAcrossSessionsTests {

	private static final ZooKeeperLockPaths PATHS = new ZooKeeperLockPaths(ZooKeeperLockBackend.DEFAULT_ROOT);

	@RegisterExtension
	static final EmbeddedZooKeeperExtension zooKeeper = new EmbeddedZooKeeperExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/** How many of the next deletes and transactions of writes are held, unsent. */
	private final AtomicInteger toHold = new AtomicInteger();

	/**
	 * The answers of the held requests, each a connection loss, to be given by the test.
	 */
	private final BlockingQueue<Runnable> heldAnswers = new LinkedBlockingQueue<>();

	/** The session the client gives up, which its handle must not close on the server. */
	private final AtomicLong givenUpSession = new AtomicLong();

	@ParameterizedTest
	@ValueSource(strings = { "exclusive", "fair", "multi-key" })
	void aReleaseWhoseDeletesWereLostOnTheNodesSessionAndOnTheNextAnswersNotReleased(String kind) throws Exception {
		String key = "lost-across-sessions." + kind + "." + System.nanoTime();
		CuratorFramework client = holdingClient();
		ZooKeeperLockBackend backend = this.closeables.add(new ZooKeeperLockBackend(client));
		List<Claim> claims = switch (kind) {
			case "exclusive" -> List.of(new Claim(key, "holder"));
			case "fair" -> List.of(new Claim(key, "holder", null, LockKind.FAIR));
			default -> List.of(new Claim(key + ".a", "holder"), new Claim(key + ".b", "holder"));
		};
		assertThat(acquire(backend, claims)).isTrue();
		this.toHold.set(2);

		CompletableFuture<List<Boolean>> released = release(backend, claims);
		Runnable lostOnTheNodesSession = this.heldAnswers.poll(10, TimeUnit.SECONDS);
		assertThat(lostOnTheNodesSession).as("the first delete, held").isNotNull();
		ZooKeeper givenUp = client.getZookeeperClient().getZooKeeper();
		this.givenUpSession.set(givenUp.getSessionId());
		byte[] password = givenUp.getSessionPasswd();
		// What Curator does after a session timeout spent disconnected: the handle is
		// told its session expired, and Curator opens a new one; the server is told
		// nothing.
		givenUp.getTestable().injectSessionExpiration();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> client.getZookeeperClient().isConnected()
					&& client.getZookeeperClient().getZooKeeper().getSessionId() != this.givenUpSession.get());
		lostOnTheNodesSession.run();
		Runnable lostOnTheNextSession = this.heldAnswers.poll(10, TimeUnit.SECONDS);
		assertThat(lostOnTheNextSession).as("the delete sent again on the new session, held").isNotNull();
		// The server ends the given-up session, as it does once its own timeout runs out,
		// and its nodes with it.
		EmbeddedZooKeeper.expireSession(this.givenUpSession.get(), password, zooKeeper.connectString());
		await().atMost(Duration.ofSeconds(10)).until(() -> claims.stream().allMatch(this::nodeGone));
		lostOnTheNextSession.run();

		assertThat(released.get(10, TimeUnit.SECONDS)).as("released by this release").containsOnly(false);
		assertThat(this.heldAnswers).isEmpty();
	}

	private boolean nodeGone(Claim claim) {
		try {
			String path = PATHS.lockPath(claim.key());
			return zooKeeper.store().checkExists().forPath(path) == null || zooKeeper.children(path).isEmpty();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	private static boolean acquire(ZooKeeperLockBackend backend, List<Claim> claims) throws Exception {
		if (claims.size() > 1) {
			return backend.tryAcquireAll(claims, claims.stream().map((claim) -> Duration.ofSeconds(30)).toList())
				.toCompletableFuture()
				.get(10, TimeUnit.SECONDS)
				.acquired();
		}
		return backend.tryAcquire(claims.get(0), Duration.ofSeconds(30))
			.toCompletableFuture()
			.get(10, TimeUnit.SECONDS)
			.acquired();
	}

	private static CompletableFuture<List<Boolean>> release(ZooKeeperLockBackend backend, List<Claim> claims) {
		if (claims.size() > 1) {
			return backend.releaseAll(claims).toCompletableFuture();
		}
		return backend.release(claims.get(0)).toCompletableFuture().thenApply(List::of);
	}

	/**
	 * A client whose handles hold the next deletes and transactions of writes, unsent,
	 * while armed, and whose test answers each as a connection loss; and that closes no
	 * handle of the given-up session on the server: Curator closes the handle it
	 * replaces, which may still end its session there, while a client that gave its
	 * session up says nothing to the server. The server keeps that session through the
	 * test (a session timeout of 30 s).
	 */
	private CuratorFramework holdingClient() throws Exception {
		CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
			.connectString(zooKeeper.connectString())
			.zookeeperFactory((connectString, sessionTimeout, watcher, canBeReadOnly) -> new GivenUpSessionKeeper(
					connectString, sessionTimeout, watcher, canBeReadOnly, this.givenUpSession) {

				@Override
				public void delete(String path, int version, AsyncCallback.VoidCallback callback, Object context) {
					if (!hold(() -> callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), path,
							context))) {
						super.delete(path, version, callback, context);
					}
				}

				@Override
				public void multi(Iterable<Op> ops, AsyncCallback.MultiCallback callback, Object context) {
					// Reads in one request are answered by the connected server.
					boolean writes = StreamSupport.stream(ops.spliterator(), false)
						.anyMatch((op) -> op.getType() != ZooDefs.OpCode.getData);
					if (!writes || !hold(() -> callback.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(),
							null, context, null))) {
						super.multi(ops, callback, context);
					}
				}

			});
		return this.closeables.add(EmbeddedZooKeeper.newClient(builder, Duration.ofSeconds(30)));
	}

	private boolean hold(Runnable lostAnswer) {
		if (this.toHold.getAndUpdate((left) -> Math.max(0, left - 1)) == 0) {
			return false;
		}
		this.heldAnswers.add(lostAnswer);
		return true;
	}

}
