package io.github.distributelock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockLossListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.CuratorZookeeperClient;
import org.apache.curator.RetryLoop;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockBackend} on ZooKeeper through Apache Curator: the lock is an ephemeral
 * node {@code <root>/<lock key>} holding the owner token, created in one request, removed
 * by a delete of the version read with the owner, and its fencing token is the node's
 * creation zxid ({@code czxid}), which only grows. Waiters set a watch on the node and
 * are woken by its deletion. The root and any missing parents are container nodes, which
 * the server removes once they are empty.
 * <p>
 * A lock lives exactly as long as the client's ZooKeeper session: there is no lease to
 * renew, so {@link #leasesExpire()} is {@code false}, the lease passed to
 * {@link #tryAcquire} is ignored, and a fixed lease or {@code timeoutMs} has no effect.
 * When Curator reports the connection {@link ConnectionState#SUSPENDED suspended}, the
 * locks are at risk: logged, and their handles
 * {@link io.github.distributelock.LockHandle#isSuspect() suspect}; when it reports the
 * session {@link ConnectionState#LOST lost}, every lock taken through this client is
 * reported lost to the {@link LockLossListener listeners}. A connection that comes back
 * within the session timeout ({@link ConnectionState#RECONNECTED reconnected}) keeps its
 * locks, which are no longer suspect.
 * <p>
 * <b>Note:</b> ZooKeeper removes the nodes of an expired session on its own clock, so
 * another client may take a lock shortly before this client hears that its session was
 * lost. Work that must never overlap should pass the fencing token to the resource it
 * protects.
 *
 * @author distributelock
 * @since 1.0.0
 */
public class ZooKeeperLockBackend implements LockBackend, AutoCloseable {

	/** The parent node of the lock nodes of the original {@code cn.dslcode} starter. */
	public static final String DEFAULT_ROOT = "/locks";

	private static final Log logger = LogFactory.getLog(ZooKeeperLockBackend.class);

	/** Attempts to create a node whose container parent the server has just removed. */
	private static final int CREATE_ATTEMPTS = 3;

	private final CuratorFramework client;

	private final ZooKeeperLockPaths paths;

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
		client.getConnectionStateListenable().addListener(this.connectionStateListener);
	}

	@Override
	public String name() {
		return "zookeeper";
	}

	/**
	 * Locks live as long as the session, so there is nothing to renew.
	 * @return {@code false}
	 */
	@Override
	public boolean leasesExpire() {
		return false;
	}

	@Override
	public AcquireResult tryAcquire(String key, String owner, Duration lease) {
		String path = this.paths.lockPath(key);
		byte[] data = owner.getBytes(StandardCharsets.UTF_8);
		Stat stat = new Stat();
		try {
			return create(path, data, stat) ? AcquireResult.acquired(stat.getCzxid())
					: AcquireResult.heldByAnother(null);
		}
		catch (Exception ex) {
			throw failure(ex);
		}
	}

	/** Creates the lock node; {@code false} if another owner holds it. */
	private boolean create(String path, byte[] owner, Stat stat) throws Exception {
		for (int attempt = 1;; attempt++) {
			try {
				// Uncompressed whatever the client's settings, as the owner is the wire
				// format; parents are made below, as Curator 5.9 ignores
				// creatingParentContainersIfNeeded() after uncompressed().
				this.client.create()
					.uncompressed()
					.storingStatIn(stat)
					.withMode(CreateMode.EPHEMERAL)
					.forPath(path, owner);
				return true;
			}
			catch (KeeperException.NodeExistsException ex) {
				// Curator retries a create whose answer was lost with the connection, and
				// the retry finds the node the first request made: that one is ours.
				return onOneSession((zooKeeper) -> Arrays.equals(read(zooKeeper, path, stat), owner)
						&& stat.getEphemeralOwner() == zooKeeper.getSessionId());
			}
			catch (KeeperException.NoNodeException ex) {
				// No root yet, or the server removed it as an empty container just now.
				if (attempt == CREATE_ATTEMPTS) {
					throw ex;
				}
				this.client.createContainers(this.paths.root());
			}
		}
	}

	/**
	 * Whether the lock is still this owner's: there is no lease to extend.
	 */
	@Override
	public boolean renew(String key, String owner, Duration lease) {
		String path = this.paths.lockPath(key);
		byte[] expected = owner.getBytes(StandardCharsets.UTF_8);
		try {
			return onOneSession((zooKeeper) -> Arrays.equals(read(zooKeeper, path, new Stat()), expected));
		}
		catch (Exception ex) {
			throw failure(ex);
		}
	}

	/**
	 * Deletes the lock node if it carries this owner. The owner and the version are read
	 * and the delete is sent on one ZooKeeper handle, so one session: after a failure the
	 * attempt starts again from the read, and a delete is never sent on a new session for
	 * a node read on an old one (whose node may be gone and taken by another client).
	 */
	@Override
	public boolean release(String key, String owner) {
		String path = this.paths.lockPath(key);
		byte[] expected = owner.getBytes(StandardCharsets.UTF_8);
		AtomicBoolean deleteSent = new AtomicBoolean();
		try {
			return onOneSession((zooKeeper) -> {
				Stat stat = new Stat();
				if (!Arrays.equals(read(zooKeeper, path, stat), expected)) {
					// After a delete whose answer was lost, the node is gone (or taken).
					return deleteSent.get();
				}
				deleteSent.set(true);
				try {
					zooKeeper.delete(fixForNamespace(path), stat.getVersion());
					return true;
				}
				catch (KeeperException.NoNodeException | KeeperException.BadVersionException ex) {
					return false;
				}
			});
		}
		catch (Exception ex) {
			throw failure(ex);
		}
	}

	/** The data of the node at {@code path}, or {@code null} if there is none. */
	private byte @Nullable [] read(ZooKeeper zooKeeper, String path, Stat stat) throws Exception {
		try {
			return zooKeeper.getData(fixForNamespace(path), false, stat);
		}
		catch (KeeperException.NoNodeException ex) {
			return null;
		}
	}

	@Override
	public void awaitRelease(String key, Duration maxWait) throws InterruptedException {
		new ZooKeeperReleaseWatcher(this.client, this.paths.lockPath(key), key).await(maxWait);
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

	/** Runs {@code call} with retries, each attempt on one ZooKeeper handle. */
	private <T> T onOneSession(SessionCall<T> call) throws Exception {
		CuratorZookeeperClient zookeeperClient = this.client.getZookeeperClient();
		return RetryLoop.callWithRetry(zookeeperClient, () -> call.apply(zookeeperClient.getZooKeeper()));
	}

	private String fixForNamespace(String path) {
		return ZKPaths.fixForNamespace(this.client.getNamespace(), path);
	}

	static RuntimeException failure(Exception ex) {
		if (ex instanceof InterruptedException) {
			Thread.currentThread().interrupt();
		}
		if (ex instanceof RuntimeException runtime) {
			return runtime;
		}
		return new IllegalStateException(ex.getMessage(), ex);
	}

	@FunctionalInterface
	private interface SessionCall<T> {

		T apply(ZooKeeper zooKeeper) throws Exception;

	}

}
