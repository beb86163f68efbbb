package io.github.distributelock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.distributelock.core.StoreClientNotStartedException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;

/**
 * Chooses the connection each lock command goes on: one the lock keeps for itself
 * ({@link RedisOwnConnection}), so that its commands reach Redis in the order they were
 * sent, whatever the application does with the factory's shared connection.
 * <p>
 * On a connection the factory may replace ({@code resetConnection()},
 * {@code initConnection()}, a failed validation) or one per command (a factory that does
 * not share its native connection), the engine's give-back of an attempt whose answer did
 * not come could go out on another connection than the attempt, reach Redis first, find
 * nothing to release, and the attempt then took the key, left in the store, held by
 * nobody, until its lease ended.
 */
final class RedisLockConnection implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(RedisLockConnection.class);

	/**
	 * Takes connections from the factory, or opens the lock's own, for callers that must
	 * not block (with a pool and a client that cannot open the lock's own connection, for
	 * each of their commands); its threads end when idle, so it needs no shutdown.
	 */
	static final Executor CONNECTING = connectingExecutor();

	private final LettuceConnectionFactory connectionFactory;

	private final RedisAnswerThreads answerThreads;

	/**
	 * Whether the factory takes its connections from Lettuce's pool: its
	 * {@code resetConnection()} then gives the shared connection back to the pool open,
	 * and the factory takes one from the pool at its next use, which may connect, or wait
	 * for the pool, however open the connection it gave back is.
	 */
	private final boolean pooled;

	/**
	 * The connection every lock command goes on: the factory's own connection when it
	 * does not share its native connection, else one opened from its client.
	 */
	private final RedisOwnConnection own = new RedisOwnConnection(this::ownConnection);

	/**
	 * Set when the client of a factory that shares its native connection cannot open a
	 * connection of the lock's own (a static master/replica client has no URI of its
	 * own): the lock's commands then go on the factory's shared connection.
	 */
	private volatile boolean clientCannotConnect;

	/**
	 * The factory's shared connection, once a call has taken it after
	 * {@link #clientCannotConnect}, from a factory that closes it when it lets go of it
	 * (no pool): while it is open, the factory holds it. {@code resetConnection()} or a
	 * stop closes it, and the factory connects again at the next use; it is not open
	 * either while Lettuce reconnects it.
	 */
	private volatile @Nullable Shared shared;

	RedisLockConnection(LettuceConnectionFactory connectionFactory, RedisAnswerThreads answerThreads) {
		this.connectionFactory = connectionFactory;
		this.answerThreads = answerThreads;
		this.pooled = connectionFactory.getClientConfiguration() instanceof LettucePoolingClientConfiguration;
	}

	private static Executor connectingExecutor() {
		ThreadPoolExecutor executor = new ThreadPoolExecutor(2, 2, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				(task) -> {
					Thread thread = new Thread(task, "distributelock-redis-connect");
					thread.setDaemon(true);
					return thread;
				});
		executor.allowCoreThreadTimeOut(true);
		return executor;
	}

	/**
	 * Runs a command on the lock's own connection, opened at the first command: with a
	 * blocking connect (for up to the connect timeout while Redis is down), on
	 * {@link #CONNECTING} for a caller that must not block (an event loop, a Reactor
	 * non-blocking thread, the client's own threads). Only when the factory's client
	 * cannot open one do the commands go on the factory's shared connection, as
	 * {@link #sendOnShared} tells.
	 */
	<T> CompletableFuture<T> send(Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command) {
		Thread sender = Thread.currentThread();
		// Read before the flag, which is set before the shared connection is kept in its
		// place: a kept shared connection is never taken for the lock's own.
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.own.ifOpened();
		if (!this.clientCannotConnect) {
			if (commands != null) {
				return sendOn(commands, command, sender);
			}
			if (this.answerThreads.mustNotBlock(sender)) {
				// Sent from the connecting thread, which learns the thread that answers
				// as sendNow does: not itself, should the answer come before the
				// callback.
				return CompletableFuture
					.supplyAsync(() -> sendOn(this.own.open(), command, Thread.currentThread()), CONNECTING)
					.thenCompose(Function.identity());
			}
			// The connection taken may be the shared one, should the client turn out not
			// to connect: sent on it once, as the next commands will be.
			return sendOn(this.own.open(), command, sender);
		}
		return sendOnShared(command, sender);
	}

	/**
	 * Runs a command on the factory's shared connection, returned to it once answered
	 * (returning it costs nothing). Spring Data opens the shared connection at its first
	 * use with a blocking connect, and again after {@code resetConnection()}; with a
	 * pool, it takes the shared connection from the pool again after
	 * {@code resetConnection()}, which may connect or wait for the pool. A caller that
	 * must not block never asks the factory: it sends on the shared connection while that
	 * is open, and has the connection taken on {@link #CONNECTING} otherwise. A reset
	 * between its look and its command closes the connection under the command, which
	 * fails as any command on a connection being closed.
	 */
	private <T> CompletableFuture<T> sendOnShared(
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command, Thread sender) {
		if (!this.answerThreads.mustNotBlock(sender)) {
			return sendNow(command);
		}
		Shared known = this.shared;
		if (known != null && known.connection().isOpen()) {
			return sendOn(known.commands(), command, sender);
		}
		return CompletableFuture.supplyAsync(() -> sendNow(command), CONNECTING).thenCompose(Function.identity());
	}

	private <T> CompletableFuture<T> sendOn(RedisClusterAsyncCommands<byte[], byte[]> commands,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command, Thread sender) {
		return command.apply(commands).whenComplete((result, failure) -> answered(sender, failure));
	}

	@SuppressWarnings("unchecked")
	private <T> CompletableFuture<T> sendNow(
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command) {
		Thread sender = Thread.currentThread();
		RedisConnection connection = connection();
		CompletableFuture<T> answer;
		try {
			RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection
				.getNativeConnection();
			remember(commands);
			answer = command.apply(commands);
		}
		catch (RuntimeException ex) {
			connection.close();
			throw ex;
		}
		return answer.whenComplete((result, failure) -> {
			connection.close();
			answered(sender, failure);
		});
	}

	/**
	 * A connection of the factory. A factory that is not running (created by hand and
	 * never started, or stopped before the lock) refuses every call until something
	 * starts it, which the engine, retrying a failing store until the caller's deadline,
	 * would wait for in vain.
	 */
	private RedisConnection connection() {
		return opened(this.connectionFactory::getConnection);
	}

	/**
	 * The connection {@link #own} keeps: the factory's, when it does not share its native
	 * connection, else one opened from its client
	 * ({@link RedisOwnConnection#openFromClient}), which the factory never replaces.
	 */
	private RedisConnection ownConnection() {
		if (!this.connectionFactory.getShareNativeConnection()) {
			return connection();
		}
		RedisConnection own = opened(() -> RedisOwnConnection.openFromClient(this.connectionFactory));
		try {
			own.getNativeConnection();
			return own;
		}
		catch (IllegalStateException ex) {
			own.close();
			if (!this.connectionFactory.isRunning()) {
				throw ex;
			}
			this.clientCannotConnect = true;
			logger.warn("The Redis lock cannot open a connection of its own from the client of its connection factory ("
					+ ex.getMessage() + "), and sends its commands on the factory's shared connection: a give-back of "
					+ "an attempt whose answer timed out may then overtake the attempt when that connection is "
					+ "replaced (validateConnection, resetConnection()). Give the lock a factory that does not share "
					+ "its native connection");
			return connection();
		}
	}

	private RedisConnection opened(Supplier<RedisConnection> opening) {
		try {
			return opening.get();
		}
		catch (IllegalStateException ex) {
			if (this.connectionFactory.isRunning()) {
				throw ex;
			}
			throw new StoreClientNotStartedException("its LettuceConnectionFactory is not running (" + ex.getMessage()
					+ "); start it before the first lock call (Spring starts a factory bean; one created by hand "
					+ "needs afterPropertiesSet() or start()), and stop it only after the lock is closed", ex);
		}
	}

	private void answered(Thread sender, @Nullable Throwable failure) {
		if (failure == null) {
			// A failure may come from the client's timer thread, which delivers no
			// answer.
			this.answerThreads.answeredOnThisThread(sender);
		}
	}

	/**
	 * Keeps the factory's shared connection, which {@code commands} run on. A pooled one
	 * is never kept: once given back to the pool, it stays open, so being open does not
	 * tell that the factory still holds it.
	 */
	private void remember(RedisClusterAsyncCommands<byte[], byte[]> commands) {
		if (this.pooled) {
			if (this.shared != null) {
				this.shared = null;
			}
			return;
		}
		StatefulConnection<?, ?> connection = statefulOf(commands);
		Shared known = this.shared;
		if (connection != null && (known == null || known.connection() != connection)) {
			this.shared = new Shared(connection, commands);
		}
	}

	/**
	 * The connection {@code commands} run on, single node or Cluster, or {@code null} for
	 * another kind of client.
	 */
	static @Nullable StatefulConnection<?, ?> statefulOf(RedisClusterAsyncCommands<?, ?> commands) {
		return (commands instanceof RedisAsyncCommands<?, ?> single) ? single.getStatefulConnection()
				: (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster)
						? cluster.getStatefulConnection() : null;
	}

	/** Closes the lock's own connection, or gives it back to the factory. */
	@Override
	public void close() {
		this.own.close();
	}

	/**
	 * The factory's shared connection, and the commands of it that the factory hands out.
	 */
	private record Shared(StatefulConnection<?, ?> connection, RedisClusterAsyncCommands<byte[], byte[]> commands) {

	}

}
