package io.github.distributelock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.Function;

import io.github.distributelock.redis.RedisScripts.Script;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * One run of a lock script, and its answer as the backend reads it: sent by SHA, loaded
 * again with {@code EVAL} when the server has lost it ({@code NOSCRIPT}, after a
 * {@code SCRIPT FLUSH}, a restart or a failover), the thread that delivered the answer
 * learnt ({@link RedisAnswerThreads}) before anything that depends on the answer runs.
 * <p>
 * All of that runs in one callback on the command's answer, and this future is the
 * answer: a stage for each (the {@code NOSCRIPT} fallback, the record of the thread, the
 * reading of the reply) ran three callbacks and completed three futures on the client's
 * event loop per answer, which cost engine v2's blocking path a measurable part of its
 * gap to engine v1 (docs/benchmarks.md, 2026-12-02).
 *
 * @param <T> the script's reply
 * @param <R> what the backend reads from it
 */
final class RedisScriptAnswer<T, R> extends CompletableFuture<R>
		implements RedisLockConnection.Reporting<R>, BiConsumer<T, @Nullable Throwable> {

	private final RedisLockConnection connection;

	private final Script script;

	private final byte[][] keys;

	private final byte[][] args;

	private final Function<? super T, ? extends R> answer;

	/**
	 * The thread that sent the script: set before the callback is registered, which the
	 * future's completion then publishes to the thread that runs it.
	 */
	private @Nullable Thread sender;

	RedisScriptAnswer(RedisLockConnection connection, Script script, byte[][] keys, byte[][] args,
			Function<? super T, ? extends R> answer) {
		this.connection = connection;
		this.script = script;
		this.keys = keys;
		this.args = args;
		this.answer = answer;
	}

	@Override
	public CompletableFuture<R> send(RedisClusterAsyncCommands<byte[], byte[]> commands, Thread sender) {
		this.sender = sender;
		commands.<T>evalsha(this.script.sha1(), this.script.output(), this.keys, this.args)
			.toCompletableFuture()
			.whenComplete(this);
		return this;
	}

	/** The answer to {@code EVALSHA}. */
	@Override
	public void accept(@Nullable T reply, @Nullable Throwable failure) {
		if (failure != null && unwrap(failure) instanceof RedisNoScriptException) {
			reload();
			return;
		}
		this.connection.answered(this.sender, failure);
		complete(reply, failure);
	}

	/**
	 * Sends the script's text, on the lock's connection as any command (whose answer's
	 * thread that send learns).
	 */
	private void reload() {
		CompletableFuture<T> loaded;
		try {
			loaded = this.connection
				.send((again) -> again.<T>eval(this.script.text(), this.script.output(), this.keys, this.args)
					.toCompletableFuture());
		}
		catch (RuntimeException | Error ex) {
			completeExceptionally(new CompletionException(ex));
			return;
		}
		loaded.whenComplete(this::complete);
	}

	/**
	 * Completes with the answer read from {@code reply}, or with {@code failure} as a
	 * stage after the command's future would: wrapped once in a
	 * {@link CompletionException}.
	 */
	private void complete(@Nullable T reply, @Nullable Throwable failure) {
		if (failure != null) {
			completeExceptionally(
					(failure instanceof CompletionException) ? failure : new CompletionException(failure));
			return;
		}
		R read;
		try {
			read = this.answer.apply(reply);
		}
		catch (RuntimeException | Error ex) {
			completeExceptionally((ex instanceof CompletionException) ? ex : new CompletionException(ex));
			return;
		}
		complete(read);
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
