package io.github.distributelock.redis;

import java.util.concurrent.CompletionStage;

import io.lettuce.core.api.StatefulRedisConnection;

/**
 * Finds the connection on which a lock write and the {@code WAIT} after it run: one
 * connection to the master that holds the key, of the lock's own, since {@code WAIT}
 * counts the acknowledgements of the writes of the connection it is sent on.
 */
interface RedisMasterRoute extends AutoCloseable {

	/**
	 * Runs {@code call} on a connection to the master that holds {@code key}.
	 * @param key the key the call writes
	 * @param call the commands, sent on the connection it is given
	 * @param <R> the result of the call
	 * @return the call's result, or the failure to reach the master or of the call
	 */
	<R> CompletionStage<R> onMasterOf(byte[] key, Call<R> call);

	@Override
	void close();

	/**
	 * Commands that write one key.
	 *
	 * @param <R> their result
	 */
	@FunctionalInterface
	interface Call<R> {

		/**
		 * Sends the commands.
		 * @param connection a connection to the key's master
		 * @param asking whether to send {@code ASKING} before each command that touches
		 * the key: the key's slot is being moved to this master, which serves it only to
		 * a command right after {@code ASKING}
		 * @return their result
		 */
		CompletionStage<R> run(StatefulRedisConnection<byte[], byte[]> connection, boolean asking);

	}

}
