package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.distributelock.core.StoreClientNotStartedException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends commands on Lettuce's asynchronous API of the application's connection factory (a
 * single node, Sentinel's master or Cluster alike, routed by key), so that no thread
 * waits for Redis; the lock scripts are sent by SHA and loaded again with {@code EVAL}
 * when the server has lost them ({@code NOSCRIPT}).
 */
final class RedisScripts {

	private static final Log logger = LogFactory.getLog(RedisScripts.class);

	static final Script ACQUIRE = Script.read("acquire.lua", ScriptOutputType.MULTI);

	static final Script RELEASE = Script.read("release.lua", ScriptOutputType.INTEGER);

	static final Script RENEW = Script.read("renew.lua", ScriptOutputType.INTEGER);

	/**
	 * Takes connections from the factory, or opens the lock's own, for callers that must
	 * not block (with a pool, for each of their commands); its threads end when idle, so
	 * it needs no shutdown.
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
	 * The factory's shared connection, once a call has taken it from a factory that hands
	 * it out as it is (it does not validate it, with a blocking PING, at each use) and
	 * closes it when it lets go of it (no pool): while it is open, the factory holds it.
	 * {@code resetConnection()} or a stop closes it, and the factory connects again at
	 * the next use; it is not open either while Lettuce reconnects it.
	 */
	private volatile @Nullable Shared shared;

	/**
	 * The connection the lock's commands go on when the factory does not share its native
	 * connection, or replaces the shared one whenever a PING on it fails
	 * ({@code validateConnection}).
	 */
	private final RedisOwnConnection own = new RedisOwnConnection(this::ownConnection);

	/**
	 * Set when the client of a validating factory cannot open a connection of the lock's
	 * own: the lock's commands then go on the factory's shared connection.
	 */
	private volatile boolean clientCannotConnect;

	RedisScripts(RedisConnectionFactory connectionFactory, RedisAnswerThreads answerThreads) {
		if (!(connectionFactory instanceof LettuceConnectionFactory)) {
			throw new IllegalArgumentException("The Redis lock backend needs a LettuceConnectionFactory (Spring Boot's "
					+ "default with spring-boot-starter-data-redis), not " + connectionFactory.getClass().getName());
		}
		this.connectionFactory = (LettuceConnectionFactory) connectionFactory;
		this.answerThreads = answerThreads;
		this.pooled = this.connectionFactory.getClientConfiguration() instanceof LettucePoolingClientConfiguration;
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

	/** Runs {@code script} by its SHA, loading it again if the server lost it. */
	<T> CompletableFuture<T> eval(Script script, byte[][] keys, byte[]... args) {
		return send((commands) -> commands.<T>evalsha(script.sha1, script.output, keys, args)
			.toCompletableFuture()
			.exceptionallyCompose((failure) -> (unwrap(failure) instanceof RedisNoScriptException)
					? send((again) -> again.<T>eval(script.text, script.output, keys, args).toCompletableFuture())
					: CompletableFuture.failedFuture(failure)));
	}

	/**
	 * Runs a command on a connection of the factory, returned to it once answered (with a
	 * shared native connection, returning it costs nothing). Spring Data opens the shared
	 * connection at its first use, and a dedicated one at every use, with a blocking
	 * connect (for up to the connect timeout while Redis is down), and again after
	 * {@code resetConnection()}; with a pool, it takes the shared connection from the
	 * pool again after {@code resetConnection()}, which may connect or wait for the pool.
	 * A caller that must not block (an event loop, a Reactor non-blocking thread, the
	 * client's own threads) never asks the factory: it sends on the shared connection
	 * while that is open, and has the connection taken on {@link #CONNECTING} otherwise.
	 * A reset between its look and its command closes the connection under the command,
	 * which fails as any command on a connection being closed. A factory that does not
	 * share its native connection is asked once, for the connection every lock command
	 * then goes on ({@link RedisOwnConnection}); a factory that validates its shared
	 * connection (a blocking PING at every use, and a new connection when it fails) is
	 * not asked at all, see {@link #ownConnection()}.
	 */
	<T> CompletableFuture<T> send(Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command) {
		Thread sender = Thread.currentThread();
		if (!this.connectionFactory.getShareNativeConnection()
				|| (this.connectionFactory.getValidateConnection() && !this.clientCannotConnect)) {
			return sendOnOwn(command, sender);
		}
		if (!this.answerThreads.mustNotBlock(sender)) {
			return sendNow(command);
		}
		Shared known = this.shared;
		if (known != null && known.connection().isOpen()) {
			return command.apply(known.commands()).whenComplete((result, failure) -> answered(sender, failure));
		}
		return CompletableFuture.supplyAsync(() -> sendNow(command), CONNECTING).thenCompose(Function.identity());
	}

	/**
	 * Sends on {@link #own}, taking it from the factory first if needed: on
	 * {@link #CONNECTING} for a caller that must not block.
	 */
	private <T> CompletableFuture<T> sendOnOwn(
			Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command, Thread sender) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = this.own.ifOpened();
		if (commands != null) {
			return sendOn(commands, command, sender);
		}
		if (this.answerThreads.mustNotBlock(sender)) {
			// Sent from the connecting thread, which learns the thread that answers as
			// sendNow does: not itself, should the answer come before the callback.
			return CompletableFuture
				.supplyAsync(() -> sendOn(this.own.open(), command, Thread.currentThread()), CONNECTING)
				.thenCompose(Function.identity());
		}
		return sendOn(this.own.open(), command, sender);
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
	 * The connection {@link #own} keeps: the factory's, or, from a factory that validates
	 * its shared connection, one opened from its client
	 * ({@link RedisOwnConnection#openFromClient}).
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
			// A static master/replica client has no URI of its own to connect to.
			this.clientCannotConnect = true;
			logger.warn("The Redis lock cannot open a connection of its own from the client of its validating "
					+ "connection factory (" + ex.getMessage() + "), and sends its commands on the factory's shared "
					+ "connection: a give-back of an attempt whose answer timed out may then overtake the attempt "
					+ "when the factory replaces that connection. Turn off validateConnection on the factory, or "
					+ "give the lock a factory that does not share its native connection");
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

	/** Gives back the connection kept for the lock's commands, if any. */
	void close() {
		this.own.close();
	}

	static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	static byte[][] bytes(String[] texts) {
		byte[][] bytes = new byte[texts.length][];
		for (int i = 0; i < texts.length; i++) {
			bytes[i] = bytes(texts[i]);
		}
		return bytes;
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null)
				? failure.getCause() : failure;
	}

	/**
	 * The factory's shared connection, and the commands of it that the factory hands out.
	 */
	private record Shared(StatefulConnection<?, ?> connection, RedisClusterAsyncCommands<byte[], byte[]> commands) {

	}

	/**
	 * A script read once: a script built on a resource checks the resource's last
	 * modification on every call, a class path lookup that cost more CPU than the rest of
	 * the call.
	 */
	record Script(String text, String sha1, ScriptOutputType output) {

		static Script read(String name, ScriptOutputType output) {
			String text = text(name);
			return new Script(text, RedisScript.of(text).getSha1(), output);
		}

		/**
		 * A script of the lock kinds, after the functions of the prelude it uses: scripts
		 * cannot share functions on Redis 6 otherwise.
		 */
		static Script readWithPrelude(String name, ScriptOutputType output) {
			String body = text(name);
			String text = RedisPrelude.of(text("prelude.lua")).neededBy(body) + "\n" + body;
			return new Script(text, RedisScript.of(text).getSha1(), output);
		}

		private static String text(String name) {
			try {
				return new ClassPathResource(name, RedisScripts.class).getContentAsString(StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not read the Redis script " + name, ex);
			}
		}

		RedisScript<Object> redisScript() {
			return RedisScript.of(this.text);
		}

	}

}
