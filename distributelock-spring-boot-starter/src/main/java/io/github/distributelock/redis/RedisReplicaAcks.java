package io.github.distributelock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the lock scripts that write on a Lettuce connection of their own, and asks Redis
 * with {@code WAIT} how many replicas acknowledged the write.
 * <p>
 * {@code WAIT} waits for the earlier writes of the connection it is sent on, so the
 * script and the {@code WAIT} must share one connection, and while it waits Redis serves
 * nothing else on that connection. On the application's shared native connection a
 * replica that does not answer would hold up every other Redis command of the application
 * for up to the timeout; a connection of the lock's own confines that to lock writes, at
 * the cost of one more connection per instance and of lock writes queueing behind each
 * other's {@code WAIT}.
 *
 */
final class RedisReplicaAcks implements AutoCloseable {

	private final LettuceConnectionFactory connectionFactory;

	private final int minReplicas;

	private final Duration timeout;

	/** A lock, not a monitor: connecting blocks, and must not pin a virtual thread. */
	private final ReentrantLock connecting = new ReentrantLock();

	private volatile @Nullable StatefulRedisConnection<byte[], byte[]> connection;

	private boolean closed;

	RedisReplicaAcks(RedisConnectionFactory connectionFactory, int minReplicas, Duration timeout) {
		if (minReplicas < 1) {
			throw new IllegalArgumentException("minReplicas must be at least 1, was " + minReplicas);
		}
		if (timeout.isNegative() || timeout.isZero()) {
			// WAIT 0 would block for ever when the replicas do not answer.
			throw new IllegalArgumentException("The replica acknowledgement timeout must be positive, was " + timeout);
		}
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			throw new IllegalArgumentException("Waiting for replica acknowledgements needs a LettuceConnectionFactory, "
					+ "not a " + connectionFactory.getClass().getName());
		}
		if (lettuce.isClusterAware()) {
			// WAIT must go to the master of the lock key's slot on the connection that
			// wrote, which the cluster connection does not let us choose.
			throw new IllegalArgumentException(
					"Waiting for replica acknowledgements is not supported on Redis Cluster; use a single master "
							+ "with replicas, under Sentinel or not");
		}
		this.connectionFactory = lettuce;
		this.minReplicas = minReplicas;
		this.timeout = timeout;
	}

	int minReplicas() {
		return this.minReplicas;
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Runs a script that answers a list, by its SHA, loading it again if the server lost
	 * it.
	 */
	@Nullable List<Object> evalList(RedisScript<?> script, List<String> keys, String... args) {
		return eval(script, ScriptOutputType.MULTI, keys, args);
	}

	/**
	 * Runs a script that answers an integer, by its SHA, loading it again if the server
	 * lost it.
	 */
	@Nullable Long evalLong(RedisScript<?> script, List<String> keys, String... args) {
		return eval(script, ScriptOutputType.INTEGER, keys, args);
	}

	private <T> @Nullable T eval(RedisScript<?> script, ScriptOutputType type, List<String> keys, String... args) {
		RedisCommands<byte[], byte[]> commands = connection().sync();
		byte[][] keyBytes = keys.stream().map(RedisReplicaAcks::bytes).toArray(byte[][]::new);
		byte[][] argBytes = new byte[args.length][];
		for (int i = 0; i < args.length; i++) {
			argBytes[i] = bytes(args[i]);
		}
		try {
			return commands.evalsha(script.getSha1(), type, keyBytes, argBytes);
		}
		catch (RedisNoScriptException ex) {
			return commands.eval(script.getScriptAsString(), type, keyBytes, argBytes);
		}
	}

	/**
	 * Waits until the required replicas acknowledged every earlier write of the lock's
	 * connection, or the timeout passes.
	 * @return how many replicas acknowledged
	 */
	long awaitReplicas() {
		Long acknowledged = connection().sync().waitForReplication(this.minReplicas, this.timeout.toMillis());
		return (acknowledged != null) ? acknowledged : 0;
	}

	/**
	 * Opened at first use, as the connection factory starts its client only once the
	 * application context has created every bean.
	 */
	private StatefulRedisConnection<byte[], byte[]> connection() {
		StatefulRedisConnection<byte[], byte[]> current = this.connection;
		if (current != null) {
			return current;
		}
		this.connecting.lock();
		try {
			if (this.closed) {
				throw new IllegalStateException("The Redis lock backend is closed");
			}
			if (this.connection == null) {
				// The factory's client carries the application's Redis URI: host or
				// Sentinel master name, credentials, database, TLS and timeouts; a
				// Sentinel-aware connection asks the Sentinels for the master again at
				// every reconnection, so it follows a failover.
				RedisClient client = (RedisClient) this.connectionFactory.getRequiredNativeClient();
				this.connection = client.connect(ByteArrayCodec.INSTANCE);
			}
			return this.connection;
		}
		finally {
			this.connecting.unlock();
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	@Override
	public void close() {
		this.connecting.lock();
		try {
			this.closed = true;
			StatefulRedisConnection<byte[], byte[]> current = this.connection;
			this.connection = null;
			if (current != null) {
				current.close();
			}
		}
		finally {
			this.connecting.unlock();
		}
	}

}
