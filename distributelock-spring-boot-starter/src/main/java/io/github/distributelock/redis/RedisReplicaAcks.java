package io.github.distributelock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the lock scripts that write, each followed by {@code WAIT} on the same connection
 * to the key's master, which tells how many replicas acknowledged the write.
 * <p>
 * {@code WAIT} counts the acknowledgements of the earlier writes of the connection it is
 * sent on, so the script and its {@code WAIT} share one connection of the lock's own
 * ({@link RedisMasterRoute}): the single master's, found through Sentinel or not
 * ({@link RedisSingleMasterRoute}), or on Redis Cluster the one to the master of the
 * key's hash slot ({@link RedisClusterMasterRoute}). Everything is sent with Lettuce's
 * asynchronous commands: no thread waits for the replicas.
 */
final class RedisReplicaAcks implements AutoCloseable {

	private final RedisMasterRoute route;

	private final int minReplicas;

	private final Duration timeout;

	/** The longest a caller of the blocking methods waits: one reconnection at most. */
	private final Duration blockingBound;

	private final RedisAnswerThreads answerThreads;

	RedisReplicaAcks(RedisConnectionFactory connectionFactory, int minReplicas, Duration timeout,
			RedisAnswerThreads answerThreads) {
		if (minReplicas < 1) {
			throw new IllegalArgumentException("minReplicas must be at least 1, was " + minReplicas);
		}
		if (timeout.isNegative() || timeout.toMillis() < 1) {
			// WAIT takes whole milliseconds, and WAIT 0 would block for ever when the
			// replicas do not answer.
			throw new IllegalArgumentException(
					"The replica acknowledgement timeout must be at least 1 ms, was " + timeout);
		}
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			throw new IllegalArgumentException("Waiting for replica acknowledgements needs a LettuceConnectionFactory, "
					+ "not a " + connectionFactory.getClass().getName());
		}
		this.route = lettuce.isClusterAware() ? new RedisClusterMasterRoute(lettuce)
				: new RedisSingleMasterRoute(lettuce, answerThreads);
		this.minReplicas = minReplicas;
		this.timeout = timeout;
		this.blockingBound = Duration.ofMillis(lettuce.getTimeout()).multipliedBy(3).plus(timeout);
		this.answerThreads = answerThreads;
	}

	int minReplicas() {
		return this.minReplicas;
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Runs a script on the master of its first key, by its SHA (loading it again if the
	 * server lost it), and, if {@code wrote} says it wrote, {@code WAIT}s on the same
	 * connection for the replicas to acknowledge.
	 * @param script the script
	 * @param type what the script answers
	 * @param keys the keys of the script, all in one hash slot
	 * @param wrote whether a reply means the script wrote, so that it must be replicated
	 * @param args the arguments of the script
	 * @param <T> the reply's type for {@code type}
	 * @return the reply and what {@code WAIT} said; failed if the script could not run
	 */
	<T> CompletionStage<Replicated<T>> evalAsync(RedisScript<?> script, ScriptOutputType type, List<String> keys,
			Predicate<@Nullable T> wrote, String... args) {
		byte[][] keyBytes = keys.stream().map(RedisReplicaAcks::bytes).toArray(byte[][]::new);
		byte[][] argBytes = new byte[args.length][];
		for (int i = 0; i < args.length; i++) {
			argBytes[i] = bytes(args[i]);
		}
		Thread sender = Thread.currentThread();
		CompletionStage<Replicated<T>> replicated = this.route.onMasterOf(keyBytes[0], (connection, asking) -> {
			RedisAsyncCommands<byte[], byte[]> commands = connection.async();
			CompletionStage<@Nullable T> reply = RedisReplicaAcks
				.<T>evalsha(commands, asking, script, type, keyBytes, argBytes)
				.exceptionallyCompose((ex) -> (unwrap(ex) instanceof RedisNoScriptException)
						? RedisReplicaAcks.<T>eval(commands, asking, script, type, keyBytes, argBytes)
						: CompletableFuture.failedFuture(ex));
			return reply.thenCompose((written) -> wrote.test(written) ? awaitReplicas(connection, written)
					: CompletableFuture.completedFuture(new Replicated<>(written, 0, null)));
		});
		return replicated.whenComplete((result, failure) -> {
			if (failure == null) {
				this.answerThreads.answeredOnThisThread(sender);
			}
		});
	}

	/**
	 * {@link #evalAsync} for a blocking caller.
	 * @param script the script
	 * @param type what the script answers
	 * @param keys the keys of the script, all in one hash slot
	 * @param wrote whether a reply means the script wrote, so that it must be replicated
	 * @param args the arguments of the script
	 * @param <T> the reply's type for {@code type}
	 * @return the reply and what {@code WAIT} said
	 */
	<T> Replicated<T> eval(RedisScript<?> script, ScriptOutputType type, List<String> keys,
			Predicate<@Nullable T> wrote, String... args) {
		CompletableFuture<Replicated<T>> result = this.<T>evalAsync(script, type, keys, wrote, args)
			.toCompletableFuture();
		try {
			return result.get(this.blockingBound.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			Throwable cause = unwrap(ex);
			throw (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
		}
		catch (TimeoutException ex) {
			result.cancel(false);
			throw new RedisCommandTimeoutException(
					"No answer from the Redis master within " + this.blockingBound.toMillis() + " ms");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisCommandInterruptedException(ex);
		}
	}

	private <T> CompletionStage<Replicated<T>> awaitReplicas(StatefulRedisConnection<byte[], byte[]> connection,
			@Nullable T written) {
		return connection.async()
			.waitForReplication(this.minReplicas, this.timeout.toMillis())
			.handle((acknowledged, ex) -> (ex != null) ? new Replicated<>(written, 0, unwrap(ex))
					: new Replicated<>(written, (acknowledged != null) ? acknowledged : 0, null));
	}

	private static <T> CompletionStage<@Nullable T> evalsha(RedisAsyncCommands<byte[], byte[]> commands, boolean asking,
			RedisScript<?> script, ScriptOutputType type, byte[][] keys, byte[][] args) {
		if (asking) {
			// Sent right before the script, without waiting: ASKING lets only the
			// connection's next command into a slot that is being migrated here.
			commands.asking();
		}
		return commands.evalsha(script.getSha1(), type, keys, args);
	}

	private static <T> CompletionStage<@Nullable T> eval(RedisAsyncCommands<byte[], byte[]> commands, boolean asking,
			RedisScript<?> script, ScriptOutputType type, byte[][] keys, byte[][] args) {
		if (asking) {
			commands.asking();
		}
		return commands.eval(script.getScriptAsString(), type, keys, args);
	}

	static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	@Override
	public void close() {
		this.route.close();
	}

	/**
	 * The reply of a script, and what {@code WAIT} said of it.
	 *
	 * @param <T> the type of the reply
	 * @param reply the script's reply
	 * @param acknowledged how many replicas acknowledged the write, 0 if the script did
	 * not write or {@code WAIT} failed
	 * @param waitFailure why {@code WAIT} failed after the script wrote, or {@code null}
	 */
	record Replicated<T>(@Nullable T reply, long acknowledged, @Nullable Throwable waitFailure) {

	}

}
