package io.github.distributelock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The one master of a standalone Redis or of a Sentinel group, on one connection the lock
 * opens for itself from the application's client.
 * <p>
 * A connection of the lock's own, not the application's shared native connection: while
 * Redis waits for replicas it serves nothing else on the connection that sent
 * {@code WAIT}, so a replica that does not answer would otherwise hold up every other
 * Redis command of the application for up to the timeout. The cost is one more connection
 * per instance, and lock writes queueing behind each other's {@code WAIT}.
 */
final class RedisSingleMasterRoute implements RedisMasterRoute {

	private final LettuceConnectionFactory connectionFactory;

	private final RedisAnswerThreads answerThreads;

	/** A lock, not a monitor: connecting blocks, and must not pin a virtual thread. */
	private final ReentrantLock connecting = new ReentrantLock();

	private volatile @Nullable StatefulRedisConnection<byte[], byte[]> connection;

	private boolean closed;

	RedisSingleMasterRoute(LettuceConnectionFactory connectionFactory, RedisAnswerThreads answerThreads) {
		this.connectionFactory = connectionFactory;
		this.answerThreads = answerThreads;
	}

	/**
	 * Until the connection is open, a caller that must not block has it opened on
	 * {@link RedisLockConnection#CONNECTING}: connecting blocks, and so may waiting for
	 * the lock another caller connects under.
	 */
	@Override
	public <R> CompletionStage<R> onMasterOf(byte[] key, Call<R> call) {
		StatefulRedisConnection<byte[], byte[]> current = this.connection;
		if (current == null && this.answerThreads.mustNotBlock(Thread.currentThread())) {
			return CompletableFuture.supplyAsync(this::connection, RedisLockConnection.CONNECTING)
				.thenCompose((opened) -> call.run(opened, false));
		}
		try {
			current = (current != null) ? current : connection();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return call.run(current, false);
	}

	/**
	 * Opened at first use, as the connection factory starts its client only once the
	 * application context has created every bean. The client carries the application's
	 * Redis URI: host or Sentinel master name, credentials, database, TLS and timeouts; a
	 * Sentinel-aware connection asks the Sentinels for the master again at every
	 * reconnection, so it follows a failover.
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
				RedisClient client = (RedisClient) this.connectionFactory.getRequiredNativeClient();
				this.connection = client.connect(ByteArrayCodec.INSTANCE);
			}
			return this.connection;
		}
		finally {
			this.connecting.unlock();
		}
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
