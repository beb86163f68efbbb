package io.github.distributelock.zookeeper;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.distributelock.core.WaitDeadlines;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.jspecify.annotations.Nullable;

/**
 * What the lock protocols share of one Curator client: the ZooKeeper handle of its
 * current session, for requests that must be read and written on one session, the retry
 * of such a request after a dropped connection, and the timer that ends waits at their
 * deadline.
 */
final class ZooKeeperSession {

	/** How many times a release or ownership check waits for a dropped connection. */
	private static final int RECONNECTION_RETRIES = 3;

	/**
	 * The pause before running a request again when the client still calls itself
	 * connected after the request failed for a dropped connection: the client hears of
	 * the drop on its event thread, which may come after the request's own answer, and an
	 * immediate run would spend a retry on the same dead connection.
	 */
	private static final long RETRY_PAUSE_MILLIS = 10;

	private final CuratorFramework client;

	private final ZooKeeperLockPaths paths;

	/** Ends the waits whose deadline came before a release, and pauses retries. */
	private final ScheduledThreadPoolExecutor timeouts = timer();

	/**
	 * Nearly every wait ends by a watch long before its deadline (a fair waiter's slice,
	 * a wait time of seconds): one timer for the earliest deadline, not one per wait,
	 * which woke the timer thread at every hand-off under contention.
	 */
	private final WaitDeadlines deadlines = new WaitDeadlines(this.timeouts);

	/**
	 * The requests waiting on {@link #timeouts} for the connection: closing drops their
	 * timers, which alone would end them while the client stays disconnected.
	 */
	private final Set<CompletableFuture<Void>> awaitingConnection = ConcurrentHashMap.newKeySet();

	private final ZooKeeperRoot root;

	private volatile boolean closed;

	ZooKeeperSession(CuratorFramework client, ZooKeeperLockPaths paths) {
		this.client = client;
		this.paths = paths;
		this.root = new ZooKeeperRoot(client, paths.root());
	}

	CuratorFramework client() {
		return this.client;
	}

	ZooKeeperLockPaths paths() {
		return this.paths;
	}

	WaitDeadlines deadlines() {
		return this.deadlines;
	}

	/**
	 * The handle of the client's current session, or {@code null} with {@code result}
	 * failed when the client has none.
	 */
	@Nullable ZooKeeper handle(CompletableFuture<?> result) {
		try {
			return this.client.getZookeeperClient().getZooKeeper();
		}
		catch (Exception ex) {
			result.completeExceptionally(ex);
			return null;
		}
	}

	/**
	 * Whether the client is connected now: while it is not, its session may have ended on
	 * the server without the client knowing yet.
	 */
	boolean isConnected() {
		return this.client.getZookeeperClient().isConnected();
	}

	/** The id of the client's current session, or 0 when it has none. */
	long sessionId() {
		try {
			return this.client.getZookeeperClient().getZooKeeper().getSessionId();
		}
		catch (Exception ex) {
			return 0;
		}
	}

	/**
	 * The session that the ephemeral node {@code path} (as the handle sees it) lives on,
	 * read on the current session; 0 if the node is gone.
	 */
	CompletableFuture<Long> ephemeralOwner(String path) {
		CompletableFuture<Long> owner = new CompletableFuture<>();
		ZooKeeper zooKeeper = handle(owner);
		if (zooKeeper == null) {
			return owner;
		}
		zooKeeper.exists(path, false, (code, node, context, stat) -> {
			KeeperException.Code outcome = KeeperException.Code.get(code);
			if (outcome == KeeperException.Code.OK) {
				owner.complete(stat.getEphemeralOwner());
			}
			else if (outcome == KeeperException.Code.NONODE) {
				owner.complete(0L);
			}
			else {
				owner.completeExceptionally(KeeperException.create(outcome, path));
			}
		}, null);
		return owner;
	}

	/** The path as the ZooKeeper handle sees it, inside the client's namespace. */
	String fixForNamespace(String path) {
		return ZKPaths.fixForNamespace(this.client.getNamespace(), path);
	}

	/**
	 * Runs {@code operation} again when it failed because the connection dropped, once
	 * the client is connected again (within its connection timeout), as Curator's own
	 * retries would: each run reads and writes on one handle, so one session. A client
	 * not connected at the first run is waited for in the same way first: ZooKeeper's
	 * client would queue the request until its try to connect fails, which takes the
	 * whole session timeout against a server that accepts the connection and never
	 * answers, before the connection timeout of the retry.
	 */
	<T> CompletableFuture<T> retriedOnReconnection(Supplier<CompletableFuture<T>> operation) {
		return retriedOnReconnection(operation, RECONNECTION_RETRIES, null);
	}

	/**
	 * As {@link #retriedOnReconnection(Supplier)}, running {@code awaitingReconnection}
	 * whenever a run failed and the client is not connected: the next run waits for a
	 * connection, up to a connection timeout, which what waits for the outcome may not be
	 * able to afford.
	 */
	<T> CompletableFuture<T> retriedOnReconnection(Supplier<CompletableFuture<T>> operation,
			Runnable awaitingReconnection) {
		return retriedOnReconnection(operation, RECONNECTION_RETRIES, awaitingReconnection);
	}

	private <T> CompletableFuture<T> retriedOnReconnection(Supplier<CompletableFuture<T>> operation, int retries,
			@Nullable Runnable awaitingReconnection) {
		if (!isConnected()) {
			return connected(awaitingReconnection)
				.thenCompose((connected) -> runRetriedOnReconnection(operation, retries, awaitingReconnection));
		}
		return runRetriedOnReconnection(operation, retries, awaitingReconnection);
	}

	private <T> CompletableFuture<T> runRetriedOnReconnection(Supplier<CompletableFuture<T>> operation, int retries,
			@Nullable Runnable awaitingReconnection) {
		return operation.get().exceptionallyCompose((failure) -> {
			if (retries > 0 && unwrap(failure) instanceof KeeperException.ConnectionLossException) {
				return connected(awaitingReconnection)
					.thenCompose((connected) -> runRetriedOnReconnection(operation, retries - 1, awaitingReconnection));
			}
			return CompletableFuture.failedFuture(failure);
		});
	}

	/**
	 * Completes when the client is connected (after a short pause if it already calls
	 * itself connected), or fails after its connection timeout.
	 * @param awaitingReconnection run if the client is not connected, or {@code null}
	 */
	private CompletableFuture<Void> connected(@Nullable Runnable awaitingReconnection) {
		CompletableFuture<Void> connected = new CompletableFuture<>();
		ConnectionStateListener listener = (curator, state) -> {
			if (state.isConnected()) {
				connected.complete(null);
			}
		};
		this.client.getConnectionStateListenable().addListener(listener);
		connected.whenComplete((done, failure) -> this.client.getConnectionStateListenable().removeListener(listener));
		this.awaitingConnection.add(connected);
		connected.whenComplete((done, failure) -> this.awaitingConnection.remove(connected));
		if (this.closed) {
			// After the add: either close() ends this wait, or this sees closed.
			connected.completeExceptionally(closedException());
			return connected;
		}
		try {
			if (this.client.getZookeeperClient().isConnected()) {
				this.timeouts.schedule(() -> connected.complete(null), RETRY_PAUSE_MILLIS, TimeUnit.MILLISECONDS);
			}
			else {
				this.timeouts.schedule(
						() -> connected.completeExceptionally(new KeeperException.ConnectionLossException()),
						this.client.getZookeeperClient().getConnectionTimeoutMs(), TimeUnit.MILLISECONDS);
				if (awaitingReconnection != null) {
					awaitingReconnection.run();
				}
			}
		}
		catch (RejectedExecutionException ex) {
			connected.completeExceptionally(closedException());
		}
		return connected;
	}

	private static ScheduledThreadPoolExecutor timer() {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "distributelock-zookeeper-timeouts");
			thread.setDaemon(true);
			return thread;
		});
		// Closing drops the timers set: they would keep the thread, and the waits they
		// reach, until the latest of them ran.
		timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		return timer;
	}

	private static IllegalStateException closedException() {
		return new IllegalStateException("The ZooKeeper lock backend is closed");
	}

	/**
	 * Creates the root as a container node, and its missing parents, unless it exists
	 * ({@link ZooKeeperRoot}).
	 */
	CompletableFuture<Void> createRoot() {
		return this.root.create();
	}

	static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

	/** The timers set and not yet run or cancelled: for tests. */
	int pendingTimers() {
		return this.timeouts.getQueue().size();
	}

	/** The deadlines of waits that have not ended yet: for tests. */
	int pendingDeadlines() {
		return this.deadlines.pendingDeadlines();
	}

	void close() {
		this.closed = true;
		// Not shutdownNow(): the timer thread may be running a waiter's continuation (the
		// engine's next step for it, maybe a release that must reach the store), which an
		// interrupt could break. The timers set for later are dropped all the same.
		this.timeouts.shutdown();
		this.deadlines.close();
		// Their timers were dropped at the shutdown: a request retried after a dropped
		// connection would wait for good while the client stays disconnected.
		this.awaitingConnection.forEach((connected) -> connected.completeExceptionally(closedException()));
	}

}
