package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Sends commands on Lettuce's asynchronous API, on the lock's connection to the
 * application's Redis (a single node, Sentinel's master or Cluster alike, routed by key),
 * so that no thread waits for Redis; the lock scripts are sent by SHA and loaded again
 * with {@code EVAL} when the server has lost them ({@code NOSCRIPT}).
 */
final class RedisScripts {

	static final Script ACQUIRE = Script.read("acquire.lua", ScriptOutputType.MULTI);

	static final Script RELEASE = Script.read("release.lua", ScriptOutputType.INTEGER);

	static final Script RENEW = Script.read("renew.lua", ScriptOutputType.INTEGER);

	private final RedisLockConnection connection;

	RedisScripts(RedisConnectionFactory connectionFactory, RedisAnswerThreads answerThreads) {
		if (!(connectionFactory instanceof LettuceConnectionFactory lettuce)) {
			throw new IllegalArgumentException("The Redis lock backend needs a LettuceConnectionFactory (Spring Boot's "
					+ "default with spring-boot-starter-data-redis), not " + connectionFactory.getClass().getName());
		}
		this.connection = new RedisLockConnection(lettuce, answerThreads);
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
	 * Runs a command on the lock's connection ({@link RedisLockConnection}), which sends
	 * every lock command in order.
	 */
	<T> CompletableFuture<T> send(Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletableFuture<T>> command) {
		return this.connection.send(command);
	}

	/** Gives back the connection kept for the lock's commands, if any. */
	void close() {
		this.connection.close();
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
