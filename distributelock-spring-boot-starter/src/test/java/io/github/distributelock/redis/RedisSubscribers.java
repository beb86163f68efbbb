package io.github.distributelock.redis;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.api.async.BaseRedisAsyncCommands;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * How many clients a Redis node counts as subscribed to a channel ({@code PUBSUB
 * NUMSUB}), read from the node and not through a lock: tests wait for it to know that a
 * waiter listens before they release.
 */
public final class RedisSubscribers {

	private RedisSubscribers() {
	}

	/**
	 * The subscribers of {@code channel} on {@code node}.
	 * @param node a template on the node
	 * @param channel the channel
	 * @return the count, 0 when none
	 */
	@SuppressWarnings("unchecked")
	public static long of(StringRedisTemplate node, String channel) {
		Long count = node.execute((RedisCallback<Long>) (connection) -> {
			BaseRedisAsyncCommands<byte[], byte[]> commands = (BaseRedisAsyncCommands<byte[], byte[]>) connection
				.getNativeConnection();
			// One channel asked, one count answered (keyed by an array, so not looked
			// up).
			return commands.pubsubNumsub(channel.getBytes(StandardCharsets.UTF_8))
				.toCompletableFuture()
				.join()
				.values()
				.stream()
				.findFirst()
				.orElse(0L);
		});
		return (count != null) ? count : 0;
	}

}
