package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.core.LockLossListener;
import io.github.distributelock.core.LockStoreProbe;
import io.github.distributelock.core.SessionLockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * A {@link LockBackend} on ZooKeeper through Apache Curator: the lock is an ephemeral
 * node {@code <root>/<lock key>} holding the owner token, created in one request, removed
 * by a delete of the version read with the owner, and its fencing token is the node's
 * creation zxid ({@code czxid}), which only grows. Waiters set a watch on the node and
 * are woken by its deletion. The root and any missing parents are container nodes, which
 * the server removes once they are empty.
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
 * keeps its locks, which are no longer suspect.
 * <p>
 * <b>Note:</b> ZooKeeper removes the nodes of an expired session on its own clock, so
 * another client may take a lock shortly before this client hears that its session was
 * lost. Work that must never overlap should pass the fencing token to the resource it
 * protects.
 *
 * @since 1.0.0
 */
public class ZooKeeperLockBackend implements SessionLockBackend, LockStoreProbe, AutoCloseable {

	/** The parent node of the lock nodes of the original {@code cn.dslcode} starter. */
	public static final String DEFAULT_ROOT = "/locks";

	private static final Log logger = LogFactory.getLog(ZooKeeperLockBackend.class);

	/** Attempts to create a node whose container parent the server has just removed. */
	private static final int CREATE_ATTEMPTS = 3;

	private final CuratorFramework client;

	private final ZooKeeperLockPaths paths;

	private final ZooKeeperSession session;

	private final ZooKeeperKindLocks kinds;

	private final List<LockLossListener> lossListeners = new CopyOnWriteArrayList<>();

	private final ConnectionStateListener connectionStateListener = (client, state) -> connectionStateChanged(state);

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
		this.kinds = new ZooKeeperKindLocks(this.session, name());
		client.getConnectionStateListenable().addListener(this.connectionStateListener);
	}

	@Override
	public String name() {
		return "zookeeper";
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		if (claim.kind().type() != LockKind.Type.EXCLUSIVE) {
			return this.kinds.tryAcquire(claim);
		}
		String path = this.paths.lockPath(claim.key());
		CompletableFuture<AcquireResult> result = new CompletableFuture<>();
		create(claim, path, claim.owner().getBytes(StandardCharsets.UTF_8), 1, result);
		return result;
	}

	/**
	 * Creates the lock node, uncompressed whatever the client's settings, as the owner is
	 * the wire format, with the client's ACL provider.
	 */
	private void create(Claim claim, String path, byte[] owner, int attempt, CompletableFuture<AcquireResult> result) {
		try {
			this.client.create()
				.uncompressed()
				.storingStatIn(new Stat())
				.withMode(CreateMode.EPHEMERAL)
				.inBackground((curator, event) -> created(claim, path, owner, attempt, event, result))
				.forPath(path, owner);
		}
		catch (Exception ex) {
			result.completeExceptionally(ex);
		}
	}

	private void created(Claim claim, String path, byte[] owner, int attempt, CuratorEvent event,
			CompletableFuture<AcquireResult> result) {
		KeeperException.Code outcome = KeeperException.Code.get(event.getResultCode());
		if (outcome == KeeperException.Code.OK) {
			result.complete(AcquireResult.acquired(event.getStat().getCzxid()));
		}
		else if (outcome == KeeperException.Code.NODEEXISTS) {
			// Curator retries a create whose answer was lost with the connection, and the
			// retry finds the node the first request made: that one is ours.
			ownNode(claim, path, owner, attempt, result);
		}
		else if (outcome == KeeperException.Code.NONODE && attempt < CREATE_ATTEMPTS) {
			// No root yet, or the server removed it as an empty container just now.
			this.session.createRoot().whenComplete((done, failure) -> {
				if (failure != null) {
					result.completeExceptionally(failure);
				}
				else {
					create(claim, path, owner, attempt + 1, result);
				}
			});
		}
		else {
			result.completeExceptionally(KeeperException.create(outcome, event.getPath()));
		}
	}

	/**
	 * Acquired if the existing node is this owner's and of this session; a node of no
	 * session is the queue of the other kinds of lock.
	 */
	private void ownNode(Claim claim, String path, byte[] owner, int attempt, CompletableFuture<AcquireResult> result) {
		String fullPath = fixForNamespace(path);
		zooKeeper(result)
			.ifPresent((zooKeeper) -> zooKeeper.getData(fullPath, false, (code, name, context, data, stat) -> {
				KeeperException.Code outcome = KeeperException.Code.get(code);
				if (outcome == KeeperException.Code.OK && Arrays.equals(data, owner)
						&& stat.getEphemeralOwner() == zooKeeper.getSessionId()) {
					result.complete(AcquireResult.acquired(stat.getCzxid()));
				}
				else if (outcome == KeeperException.Code.OK && stat.getEphemeralOwner() == 0) {
					this.kinds.plainMetQueue(claim, fullPath, () -> {
						if (attempt < CREATE_ATTEMPTS) {
							create(claim, path, owner, attempt + 1, result);
						}
						else {
							result.complete(AcquireResult.heldByAnother(null));
						}
					}, result);
				}
				else if (outcome == KeeperException.Code.OK || outcome == KeeperException.Code.NONODE) {
					result.complete(AcquireResult.heldByAnother(null));
				}
				else {
					result.completeExceptionally(KeeperException.create(outcome, fullPath));
				}
			}, null));
	}

	/**
	 * Whether the lock node still carries this owner: there is no lease to extend, and
	 * the engine does not renew the locks of a session.
	 */
	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		if (claim.kind().type() != LockKind.Type.EXCLUSIVE) {
			return this.kinds.owned(claim);
		}
		return this.session.retriedOnReconnection(() -> ownedOnOneSession(claim));
	}

	private CompletableFuture<Boolean> ownedOnOneSession(Claim claim) {
		String path = fixForNamespace(this.paths.lockPath(claim.key()));
		byte[] expected = claim.owner().getBytes(StandardCharsets.UTF_8);
		CompletableFuture<Boolean> owned = new CompletableFuture<>();
		zooKeeper(owned).ifPresent((zooKeeper) -> zooKeeper.getData(path, false, (code, name, context, data, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.OK || outcome == KeeperException.Code.NONODE) {
				owned.complete(Arrays.equals(data, expected) && stat != null
						&& stat.getEphemeralOwner() == zooKeeper.getSessionId());
			}
			else {
				owned.completeExceptionally(KeeperException.create(outcome, path));
			}
		}, null));
		return owned;
	}

	/**
	 * Deletes the lock node if it carries this owner: reads the owner and the version,
	 * then deletes that version, both on one ZooKeeper handle, so one session.
	 */
	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		if (claim.kind().type() != LockKind.Type.EXCLUSIVE) {
			return this.kinds.release(claim);
		}
		return this.session.retriedOnReconnection(() -> releaseOnOneSession(claim));
	}

	private CompletableFuture<Boolean> releaseOnOneSession(Claim claim) {
		String path = fixForNamespace(this.paths.lockPath(claim.key()));
		byte[] expected = claim.owner().getBytes(StandardCharsets.UTF_8);
		CompletableFuture<Boolean> released = new CompletableFuture<>();
		zooKeeper(released)
			.ifPresent((zooKeeper) -> zooKeeper.getData(path, false, (code, name, context, data, stat) -> {
				KeeperException.Code outcome = KeeperException.Code.get(code);
				if (outcome == KeeperException.Code.NONODE
						|| (outcome == KeeperException.Code.OK && !Arrays.equals(data, expected))) {
					released.complete(false);
				}
				else if (outcome != KeeperException.Code.OK) {
					released.completeExceptionally(KeeperException.create(outcome, path));
				}
				else {
					zooKeeper.delete(path, stat.getVersion(), (deleteCode, deleted, deleteContext) -> {
						KeeperException.Code deleteOutcome = KeeperException.Code.get(deleteCode);
						if (deleteOutcome == KeeperException.Code.OK) {
							released.complete(true);
						}
						else if (deleteOutcome == KeeperException.Code.NONODE
								|| deleteOutcome == KeeperException.Code.BADVERSION) {
							released.complete(false);
						}
						else {
							released.completeExceptionally(KeeperException.create(deleteOutcome, path));
						}
					}, null);
				}
			}, null));
		return released;
	}

	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		if (claim.kind().type() != LockKind.Type.EXCLUSIVE
				|| lastAttempt.hint() instanceof ZooKeeperKindLocks.QueueWait) {
			// A queue node's waiter, or a plain waiter that found the key's queue.
			return this.kinds.awaitRelease(claim, lastAttempt, deadline);
		}
		String path = fixForNamespace(this.paths.lockPath(claim.key()));
		CompletableFuture<Void> released = new CompletableFuture<>();
		zooKeeper(released).ifPresent((zooKeeper) -> new ZooKeeperReleaseWatcher(zooKeeper, path, claim.key(), released)
			.watch(this.session.timeouts(), deadline));
		return released;
	}

	/**
	 * Reads the root node's existence, which changes nothing.
	 */
	@Override
	public void probe() {
		try {
			this.client.checkExists().forPath(this.paths.root());
		}
		catch (Exception ex) {
			if (ex instanceof InterruptedException) {
				Thread.currentThread().interrupt();
			}
			throw (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex.getMessage(), ex);
		}
	}

	@Override
	public void addLossListener(LockLossListener listener) {
		this.lossListeners.add(listener);
	}

	@Override
	public void removeLossListener(LockLossListener listener) {
		this.lossListeners.remove(listener);
	}

	/**
	 * Stops listening to the client's connection state; the client itself is closed by
	 * its owner.
	 */
	@Override
	public void close() {
		this.client.getConnectionStateListenable().removeListener(this.connectionStateListener);
		this.session.close();
	}

	private void connectionStateChanged(ConnectionState state) {
		if (state == ConnectionState.SUSPENDED) {
			tellListeners(state, (listener) -> listener.locksAtRisk("the connection to ZooKeeper is suspended; "
					+ "the locks are lost if the session expires before it comes back"));
		}
		else if (state == ConnectionState.RECONNECTED) {
			tellListeners(state,
					(listener) -> listener.locksSafe(
							"the connection to ZooKeeper is back within the session timeout; the session and its "
									+ "lock nodes are kept"));
		}
		else if (state == ConnectionState.LOST) {
			tellListeners(state, (listener) -> listener
				.locksLost("the ZooKeeper session was lost, and the server removes its ephemeral lock nodes"));
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("ZooKeeper connection of the lock backend is " + state);
		}
	}

	private void tellListeners(ConnectionState state, Consumer<LockLossListener> call) {
		for (LockLossListener listener : this.lossListeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock loss listener failed on ZooKeeper connection state " + state, ex);
			}
		}
	}

	/**
	 * The handle of the client's current session, or empty with {@code result} failed
	 * when the client has none.
	 */
	private Optional<ZooKeeper> zooKeeper(CompletableFuture<?> result) {
		return Optional.ofNullable(this.session.handle(result));
	}

	private String fixForNamespace(String path) {
		return this.session.fixForNamespace(path);
	}

}
