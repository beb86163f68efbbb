package io.github.distributelock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The master of a key's hash slot on Redis Cluster, on the node connections of a cluster
 * connection the lock opens for itself from the application's client.
 * <p>
 * The cluster connection routes each command by its key and would send a keyless
 * {@code WAIT} to any node, so the script and its {@code WAIT} go to one node connection
 * ({@link StatefulRedisClusterConnection#getConnectionAsync(String)}) chosen from the
 * client's view of the slots. A node connection follows no redirection: when the view is
 * stale (a failover moved the slot) the script is answered {@code MOVED} and did not run,
 * and is sent again to the master the reply names; {@code ASK} (the slot is being
 * migrated and the key is not on the old master) sends it to the new master after
 * {@code ASKING}. Any failure also asks the client to read the slots again (at most every
 * 200 ms), so that the next attempt finds the master a failover promoted. A master that
 * cannot be reached (refused, or its connection not connected) fails at once rather than
 * holding the command until the node returns; if the slots read again name another
 * master, the call is sent there instead, as nothing was sent yet.
 */
final class RedisClusterMasterRoute implements RedisMasterRoute {

	/** As many redirections as Lettuce follows by default. */
	private static final int MAX_REDIRECTS = 5;

	/** At most this often, so that a dead master does not make every attempt reread. */
	private static final long REFRESH_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

	private static final Log logger = LogFactory.getLog(RedisClusterMasterRoute.class);

	private final LettuceConnectionFactory connectionFactory;

	private final ReentrantLock connecting = new ReentrantLock();

	private volatile @Nullable CompletableFuture<StatefulRedisClusterConnection<byte[], byte[]>> connection;

	private boolean closed;

	/** The last reading of the slots, or the one under way. */
	private final AtomicReference<CompletableFuture<Void>> refresh = new AtomicReference<>(
			CompletableFuture.completedFuture(null));

	/** When the last reading of the slots ended. */
	private volatile long lastRefresh = System.nanoTime() - REFRESH_INTERVAL_NANOS;

	RedisClusterMasterRoute(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public <R> CompletionStage<R> onMasterOf(byte[] key, Call<R> call) {
		int slot = SlotHash.getSlot(key);
		return connection().thenCompose((cluster) -> onMasterOfSlot(cluster, slot, call, true));
	}

	/**
	 * @param mayLookAgain whether, when the master cannot be reached, to read the slots
	 * again and try once more if another node serves the slot now
	 */
	private <R> CompletionStage<R> onMasterOfSlot(StatefulRedisClusterConnection<byte[], byte[]> cluster, int slot,
			Call<R> call, boolean mayLookAgain) {
		RedisClusterNode master = cluster.getPartitions().getMasterBySlot(slot);
		if (master == null) {
			refreshSlots();
			return CompletableFuture.failedFuture(new RedisException("No master serves hash slot " + slot
					+ " in the client's view of the cluster; the view is being read again"));
		}
		return attempt(cluster, cluster.getConnectionAsync(master.getNodeId()), false, call, 0)
			.exceptionallyCompose((ex) -> {
				Throwable failure = RedisReplicaAcks.unwrap(ex);
				if (!(failure instanceof Unreachable) || !mayLookAgain) {
					return CompletableFuture.failedFuture(failure);
				}
				// Nothing was sent: if a failover promoted another node, go there now
				// rather than fail until the next attempt.
				return refreshSlots().thenCompose((read) -> {
					RedisClusterNode now = cluster.getPartitions().getMasterBySlot(slot);
					return (now != null && !now.getNodeId().equals(master.getNodeId()))
							? onMasterOfSlot(cluster, slot, call, false) : CompletableFuture.failedFuture(failure);
				});
			});
	}

	private <R> CompletionStage<R> attempt(StatefulRedisClusterConnection<byte[], byte[]> cluster,
			CompletionStage<StatefulRedisConnection<byte[], byte[]>> node, boolean asking, Call<R> call,
			int redirects) {
		return node.handle((connection, ex) -> {
			if (ex != null || !connection.isOpen()) {
				throw new Unreachable(ex);
			}
			return connection;
		}).thenCompose((connection) -> call.run(connection, asking)).exceptionallyCompose((ex) -> {
			Throwable failure = RedisReplicaAcks.unwrap(ex);
			refreshSlots();
			Redirect redirect = Redirect.of(failure);
			if (redirect == null || redirects >= MAX_REDIRECTS) {
				return CompletableFuture.failedFuture(failure);
			}
			if (logger.isDebugEnabled()) {
				logger.debug("Following '" + failure.getMessage() + "' for a lock write");
			}
			return attempt(cluster, cluster.getConnectionAsync(redirect.host(), redirect.port()), redirect.asking(),
					call, redirects + 1);
		});
	}

	/**
	 * Reads the slots again, once at a time and not too often; the client updates every
	 * connection it made, the application's too.
	 * @return completes when the slots were read, successfully or not
	 */
	private CompletionStage<Void> refreshSlots() {
		CompletableFuture<Void> current = this.refresh.get();
		if (!current.isDone() || System.nanoTime() - this.lastRefresh < REFRESH_INTERVAL_NANOS) {
			return current;
		}
		CompletableFuture<Void> next = new CompletableFuture<>();
		if (!this.refresh.compareAndSet(current, next)) {
			return this.refresh.get();
		}
		CompletionStage<Void> reading;
		try {
			reading = client().refreshPartitionsAsync();
		}
		catch (RuntimeException ex) {
			reading = CompletableFuture.failedFuture(ex);
		}
		reading.whenComplete((done, ex) -> {
			this.lastRefresh = System.nanoTime();
			if (ex != null) {
				logger.warn(
						"Could not read the Redis Cluster's slots again: " + RedisReplicaAcks.unwrap(ex).getMessage());
			}
			next.complete(null);
		});
		return next;
	}

	private RedisClusterClient client() {
		return (RedisClusterClient) this.connectionFactory.getRequiredNativeClient();
	}

	/**
	 * Opened at first use, as the connection factory starts its client only once the
	 * application context has created every bean; opened again if opening failed.
	 */
	private CompletableFuture<StatefulRedisClusterConnection<byte[], byte[]>> connection() {
		CompletableFuture<StatefulRedisClusterConnection<byte[], byte[]>> current = this.connection;
		if (current != null && !current.isCompletedExceptionally()) {
			return current;
		}
		this.connecting.lock();
		try {
			if (this.closed) {
				return CompletableFuture.failedFuture(new IllegalStateException("The Redis lock backend is closed"));
			}
			current = this.connection;
			if (current == null || current.isCompletedExceptionally()) {
				try {
					RedisClusterClient client = client();
					// Connecting asynchronously needs the slots read first, which the
					// application's client may not have done yet.
					current = client.refreshPartitionsAsync()
						.thenCompose((read) -> client.connectAsync(ByteArrayCodec.INSTANCE))
						.toCompletableFuture();
				}
				catch (RuntimeException ex) {
					return CompletableFuture.failedFuture(ex);
				}
				this.connection = current;
			}
			return current;
		}
		finally {
			this.connecting.unlock();
		}
	}

	@Override
	public void close() {
		CompletableFuture<StatefulRedisClusterConnection<byte[], byte[]>> current;
		this.connecting.lock();
		try {
			this.closed = true;
			current = this.connection;
			this.connection = null;
		}
		finally {
			this.connecting.unlock();
		}
		if (current != null) {
			current.thenAccept(StatefulRedisClusterConnection::closeAsync);
		}
	}

	/**
	 * The master could not be reached, so nothing was sent to it.
	 */
	private static final class Unreachable extends RedisConnectionException {

		Unreachable(@Nullable Throwable cause) {
			super("The master of the lock key's hash slot could not be reached"
					+ ((cause != null) ? ": " + RedisReplicaAcks.unwrap(cause).getMessage() : " (not connected)")
					+ "; the cluster's slots are being read again", cause);
		}

	}

	/**
	 * A {@code MOVED} or {@code ASK} error reply: the node does not serve the key's slot,
	 * and did not run the command.
	 */
	record Redirect(String host, int port, boolean asking) {

		static @Nullable Redirect of(Throwable failure) {
			if (!(failure instanceof RedisCommandExecutionException) || failure.getMessage() == null) {
				return null;
			}
			// MOVED <slot> <host>:<port>, or ASK <slot> <host>:<port>
			String[] parts = failure.getMessage().split(" ");
			boolean moved = parts[0].equals("MOVED");
			if (parts.length != 3 || !(moved || parts[0].equals("ASK"))) {
				return null;
			}
			int colon = parts[2].lastIndexOf(':');
			String port = parts[2].substring(colon + 1);
			if (colon < 1 || port.isEmpty() || port.length() > 5 || !port.chars().allMatch(Character::isDigit)) {
				return null;
			}
			return new Redirect(parts[2].substring(0, colon), Integer.parseInt(port), !moved);
		}

	}

}
