package io.github.distributelock.redis;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One connection of a factory that does not share its native connection (pooled or not),
 * or of the client of a factory that shares it, taken at the first lock command and kept,
 * on which every lock command goes, so that the lock's commands reach Redis in the order
 * they were sent.
 * <p>
 * On a connection of its own per command, or on a shared one the factory replaced, the
 * engine's give-back of an attempt whose answer timed out could reach Redis before the
 * attempt, still on its way on its connection: it found nothing to release, and the
 * attempt then took the key, left in the store, held by nobody, until its lease ended.
 * Kept, the connection is also not opened (or taken from the pool) again for every
 * command.
 */
final class RedisOwnConnection implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisOwnConnection.class);

	/** Takes a connection from the factory, which may block. */
	private final Supplier<RedisConnection> factoryConnection;

	/** A lock, not a monitor: connecting blocks, and must not pin a virtual thread. */
	private final ReentrantLock opening = new ReentrantLock();

	private volatile @Nullable Held held;

	/** Set by {@link #close()}, under {@link #opening}. */
	private boolean closed;

	RedisOwnConnection(Supplier<RedisConnection> factoryConnection) {
		this.factoryConnection = factoryConnection;
	}

	/**
	 * The connection's commands, or {@code null} if it must be taken from the factory
	 * first. A connection Lettuce reconnects is still this one: the commands it had in
	 * flight are sent again on it, in their order, before the ones sent since.
	 */
	@Nullable RedisClusterAsyncCommands<byte[], byte[]> ifOpened() {
		Held current = this.held;
		return (current != null && !current.handler().isClosed()) ? current.commands() : null;
	}

	/**
	 * The connection's commands, taking a connection from the factory if there is none,
	 * or if the one kept was closed (the factory stopped).
	 */
	RedisClusterAsyncCommands<byte[], byte[]> open() {
		this.opening.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("The Redis lock backend is closed");
			}
			RedisClusterAsyncCommands<byte[], byte[]> opened = ifOpened();
			if (opened != null) {
				return opened;
			}
			letGo();
			RedisConnection connection = this.factoryConnection.get();
			try {
				Held taken = Held.of(connection);
				this.held = taken;
				return taken.commands();
			}
			catch (RuntimeException ex) {
				connection.close();
				throw ex;
			}
		}
		finally {
			this.opening.unlock();
		}
	}

	/**
	 * A connection of the lock's own, opened from the client of a factory that shares its
	 * native connection. Such a factory replaces its shared connection when the
	 * application resets it ({@code resetConnection()}, {@code initConnection()}), or,
	 * validating it, when a PING on it fails, as one times out behind an attempt whose
	 * answer timed out: the give-back of an attempt then went out on the new connection,
	 * ran before the attempt, found nothing to release, and the attempt took the key,
	 * left in the store, held by nobody, until its lease ended. This one carries the
	 * client's URI (host or Sentinel master, credentials, database, TLS), and the factory
	 * never replaces it; it does not come from the factory's pool.
	 * @param factory a started factory
	 * @return a connection that opens its native connection at first use
	 * @throws IllegalStateException if the factory has no client (not started)
	 */
	static RedisConnection openFromClient(LettuceConnectionFactory factory) {
		AbstractRedisClient client = factory.getRequiredNativeClient();
		return (client instanceof RedisClusterClient cluster) ? new LettuceClusterConnection(cluster)
				: new LettuceConnection(null, factory.getTimeout(), client, factory.getDatabase());
	}

	@Override
	public void close() {
		this.opening.lock();
		try {
			this.closed = true;
			letGo();
		}
		finally {
			this.opening.unlock();
		}
	}

	/** Gives the connection kept back to the factory, which closes it or pools it. */
	private void letGo() {
		Held current = this.held;
		this.held = null;
		if (current == null) {
			return;
		}
		try {
			current.connection().close();
		}
		catch (RuntimeException ex) {
			// A factory stopped since may refuse it (its pool is gone, and the client
			// closed the connection already): that must not keep the lock from taking
			// a connection of the factory started again.
			logger.warn("Could not give the Redis lock's connection back to its connection factory", ex);
		}
	}

	/**
	 * A connection of the factory, the commands of its dedicated native connection, and
	 * that connection's handler, which tells whether it was closed.
	 */
	private record Held(RedisConnection connection, RedisClusterAsyncCommands<byte[], byte[]> commands,
			RedisChannelHandler<?, ?> handler) {

		@SuppressWarnings("unchecked")
		static Held of(RedisConnection connection) {
			RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection
				.getNativeConnection();
			Object stateful = RedisLockConnection.statefulOf(commands);
			if (!(stateful instanceof RedisChannelHandler<?, ?> handler)) {
				throw new IllegalStateException("Unexpected Lettuce connection " + commands.getClass().getName());
			}
			return new Held(connection, commands, handler);
		}

	}

}
