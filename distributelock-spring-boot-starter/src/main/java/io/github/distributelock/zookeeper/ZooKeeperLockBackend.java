package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.HandOverLockBackend;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockLossListener;
import io.github.distributelock.core.LockStoreProbe;
import io.github.distributelock.core.MultiKeyAcquireResult;
import io.github.distributelock.core.MultiKeyLockBackend;
import io.github.distributelock.core.SessionLockBackend;
import io.github.distributelock.core.StoreClientNotStartedException;
import io.github.distributelock.core.StoreClientThreads;
import org.apache.curator.CuratorZookeeperClient;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.client.ConnectStringParser;
import org.apache.zookeeper.server.ZooKeeperThread;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockBackend} on ZooKeeper through Apache Curator: the lock is an ephemeral
 * node {@code <root>/<lock key>} holding the owner token, created in one request, removed
 * by a delete of the version read with the owner, and its fencing token is the node's
 * creation zxid ({@code czxid}), which only grows. A lock released while another caller
 * of this client waits for it is handed over by writing that caller's owner into the node
 * at the version read ({@link #handOver}); the fencing token is then that write's zxid.
 * Waiters set a watch on the node and are woken by its deletion. The root and any missing
 * parents are container nodes, which the server removes once they are empty.
 * <p>
 * The fair, read/write and permit locks queue at the same path instead: a container node
 * with one ephemeral sequential node per claim, ordered by arrival, whose lowest nodes
 * hold (after Curator's {@code InterProcessMutex}, {@code InterProcessReadWriteLock} and
 * {@code InterProcessSemaphoreV2}). One path holds either a plain node or a queue, so
 * these kinds and the plain lock, of this library or of the original starter, exclude
 * each other; a queue of another kind than the one asked for fails the attempt with a
 * {@link io.github.distributelock.LockKindConflictException}.
 * <p>
 * The plain nodes of a multi-key request are created in one transaction and deleted in
 * one ({@link ZooKeeperMultiKeyLocks}, {@link ZooKeeperMultiKeyReleases}).
 * <p>
 * A lock lives exactly as long as the client's ZooKeeper session: there is no lease to
 * renew, so this is a {@link SessionLockBackend}, the lease passed to {@link #tryAcquire}
 * is ignored, and a fixed lease or {@code timeoutMs} has no effect.
 * <p>
 * Requests go on the asynchronous API of the session's ZooKeeper handle, so no thread
 * waits for the server; the read of the owner and the versioned delete of a release are
 * sent on one handle, so one session (after a failure the engine starts again from the
 * read, and a delete is never sent on a new session for a node read on an old one, whose
 * node may be gone and taken by another client). When Curator reports the connection
 * {@link ConnectionState#SUSPENDED suspended}, the locks are at risk: logged, and their
 * handles {@link io.github.distributelock.LockHandle#isSuspect() suspect}; when it
 * reports the session {@link ConnectionState#LOST lost}, every lock taken through this
 * client is reported lost to the {@link LockLossListener listeners}. A connection that
 * comes back within the session timeout ({@link ConnectionState#RECONNECTED reconnected})
 * keeps its locks, which are no longer suspect. An attempt, of one key or of several,
 * answers by its caller's deadline while the client is not connected
 * ({@link ZooKeeperAttemptDeadlines}).
 * <p>
 * <b>Note:</b> ZooKeeper removes the nodes of an expired session on its own clock, so
 * another client may take a lock shortly before this client hears that its session was
 * lost. Work that must never overlap should pass the fencing token to the resource it
 * protects.
 *
 * @since 1.0.0
 */
public class ZooKeeperLockBackend implements SessionLockBackend, HandOverLockBackend, MultiKeyLockBackend,
		LockStoreProbe, StoreClientThreads, AutoCloseable {

	/** The parent node of the lock nodes of the original {@code cn.dslcode} starter. */
	public static final String DEFAULT_ROOT = "/locks";

	private final CuratorFramework client;

	private final ZooKeeperLockPaths paths;

	private final ZooKeeperSession session;

	private final ZooKeeperPlainLocks plain;

	private final ZooKeeperPlainHandOvers plainHandOvers;

	private final ZooKeeperKindLocks kinds;

	private final ZooKeeperMultiKeyLocks multiKey;

	private final ZooKeeperMultiKeyReleases multiKeyReleases;

	private final ZooKeeperLossSignals lossSignals = new ZooKeeperLossSignals();

	private final ZooKeeperAttemptDeadlines attemptDeadlines;

	/**
	 * Creates a backend whose lock nodes live under {@code /locks}.
	 * @param client the Curator client, started and closed by its owner
	 */
	public ZooKeeperLockBackend(CuratorFramework client) {
		this(client, DEFAULT_ROOT);
	}

	/**
	 * Creates a backend.
	 * @param client the Curator client, started and closed by its owner
	 * @param root the parent node of the lock nodes, such as {@code /locks}
	 */
	public ZooKeeperLockBackend(CuratorFramework client, String root) {
		this.client = client;
		this.paths = new ZooKeeperLockPaths(root);
		this.session = new ZooKeeperSession(client, this.paths);
		ZooKeeperEmptyQueues emptyQueues = new ZooKeeperEmptyQueues(this.session);
		this.plain = new ZooKeeperPlainLocks(this.session, emptyQueues, name());
		this.plainHandOvers = new ZooKeeperPlainHandOvers(this.session, this.plain);
		this.kinds = new ZooKeeperKindLocks(this.session, new ZooKeeperKindReleases(this.session, emptyQueues), name());
		this.multiKey = new ZooKeeperMultiKeyLocks(this.session, this.plain);
		this.multiKeyReleases = new ZooKeeperMultiKeyReleases(this.session, this.plain);
		this.attemptDeadlines = new ZooKeeperAttemptDeadlines(this.session,
				(claim) -> release(claim).toCompletableFuture(), this.multiKeyReleases::releaseAll);
		client.getConnectionStateListenable().addListener(this.lossSignals);
		client.getConnectionStateListenable().addListener(this.attemptDeadlines);
	}

	@Override
	public String name() {
		return "zookeeper";
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		if (neverStarted()) {
			return CompletableFuture.failedFuture(neverStartedException());
		}
		return this.attemptDeadlines.bound(claim,
				() -> (ZooKeeperPlainLocks.plain(claim)) ? this.plain.tryAcquire(claim) : this.kinds.tryAcquire(claim));
	}

	/**
	 * Whether the lock's node still exists for this owner on this session: there is no
	 * lease to extend, and the engine does not renew the locks of a session.
	 */
	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		return (ZooKeeperPlainLocks.plain(claim)) ? this.plain.owned(claim) : this.kinds.owned(claim);
	}

	/**
	 * Deletes the lock's node if it is this owner's: a plain node after reading its owner
	 * and version on the same session, a queue node by its name (which holds the owner),
	 * whether it holds or waits.
	 */
	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		return (ZooKeeperPlainLocks.plain(claim)) ? this.plain.release(claim) : this.kinds.release(claim);
	}

	/**
	 * Writes the next owner into the plain lock's node, at the version read with the
	 * holder's owner, on one session: one fsync, where a release and a new node cost two.
	 * A fair lock is released, and the next claim attempts, which its node's place in the
	 * queue decides.
	 */
	@Override
	public CompletionStage<HandOver> handOver(Claim holder, Claim next, Duration lease) {
		if (ZooKeeperPlainLocks.plain(holder)) {
			return this.plainHandOvers.handOver(holder, next);
		}
		// A queued kind hands off with the holder's delete, which admits the next node:
		// there is no write to save.
		return this.kinds.release(holder)
			.thenCompose((released) -> this.attemptDeadlines.bound(next, () -> this.kinds.tryAcquire(next))
				.thenApply((attempt) -> new HandOver(released, attempt)));
	}

	/**
	 * A fair claim of this backend whose node is right behind the holder's holds as soon
	 * as the holder's delete is sent: both nodes live as long as this session, so other
	 * instances see the key held throughout, and the hand-off costs no write on the next
	 * holder's way.
	 */
	@Override
	public @Nullable AcquireResult admittedByRelease(Claim holder, Claim next) {
		return (ZooKeeperPlainLocks.plain(holder)) ? null : this.kinds.admittedByRelease(holder, next);
	}

	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		return (ZooKeeperPlainLocks.plain(claim)) ? this.plain.awaitRelease(claim, lastAttempt, deadline)
				: this.kinds.awaitRelease(claim, lastAttempt, deadline);
	}

	/**
	 * Whether every claim is a plain lock: their nodes are created in one transaction
	 * ({@link ZooKeeperMultiKeyLocks}).
	 */
	@Override
	public boolean batches(List<Claim> claims) {
		return this.multiKey.batches(claims);
	}

	@Override
	public CompletionStage<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases) {
		if (neverStarted()) {
			return CompletableFuture.failedFuture(neverStartedException());
		}
		return this.attemptDeadlines.boundAll(claims, () -> this.multiKey.tryAcquireAll(claims));
	}

	/**
	 * Whether the client was never started: Curator answers every call with "Client is
	 * not started", which the engine took for a store failure and retried until the
	 * caller's wait time ran out.
	 */
	private boolean neverStarted() {
		return this.client.getState() == CuratorFrameworkState.LATENT;
	}

	private static StoreClientNotStartedException neverStartedException() {
		return new StoreClientNotStartedException("its CuratorFramework was never started; call start() on it "
				+ "before the first lock call, as @Bean(initMethod = \"start\", destroyMethod = \"close\") does");
	}

	@Override
	public CompletionStage<List<Boolean>> releaseAll(List<Claim> claims) {
		return this.multiKeyReleases.releaseAll(claims);
	}

	/**
	 * Reads the root node's existence, and the chroot's if the connect string has one,
	 * which changes nothing.
	 */
	@Override
	public void probe() {
		if (neverStarted()) {
			throw neverStartedException();
		}
		try {
			this.client.checkExists().forPath(this.paths.root());
			checkChroot();
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			throw (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex.getMessage(), ex);
		}
	}

	/**
	 * Refuses a chroot that does not exist: ZooKeeper does not create it, and every lock
	 * call would fail. Read on the client's own handle, which the chroot applies to and a
	 * Curator namespace (created on demand) does not.
	 */
	private void checkChroot() throws Exception {
		CuratorZookeeperClient zooKeeperClient = this.client.getZookeeperClient();
		String chroot = new ConnectStringParser(zooKeeperClient.getCurrentConnectionString()).getChrootPath();
		if (chroot != null && zooKeeperClient.getZooKeeper().exists("/", false) == null) {
			throw new IllegalStateException("the chroot " + chroot + " of the connect string does not exist, and "
					+ "ZooKeeper does not create it; create it, or remove it from the connect string");
		}
	}

	@Override
	public void addLossListener(LockLossListener listener) {
		this.lossSignals.add(listener);
	}

	@Override
	public void removeLossListener(LockLossListener listener) {
		this.lossSignals.remove(listener);
	}

	/**
	 * ZooKeeper's client threads (the event thread, which runs Curator's background
	 * callbacks and watchers, and the send thread) deliver this backend's answers.
	 */
	@Override
	public boolean deliversAnswersOn(Thread thread) {
		return thread instanceof ZooKeeperThread;
	}

	/**
	 * Stops listening to the client's connection state; the client itself is closed by
	 * its owner.
	 */
	@Override
	public void close() {
		this.client.getConnectionStateListenable().removeListener(this.lossSignals);
		this.client.getConnectionStateListenable().removeListener(this.attemptDeadlines);
		this.session.close();
	}

}
