package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionCommands;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A {@link LockBackend} on Redis through Spring Data Redis: the lock is a plain string
 * key {@code <prefix><lock key>} holding the owner token, set with {@code SET NX PX},
 * released and renewed by owner-checked Lua scripts (run by SHA, loaded again when the
 * server has lost them), with waiters woken by a pub/sub message at release.
 * <p>
 * Single node, Sentinel and Cluster work alike: everything one script touches lives in
 * the lock key's hash slot.
 *
 * @author distributelock
 * @since 1.0.0
 */
public class RedisLockBackend implements LockBackend, AutoCloseable {

	/** The key prefix of the original {@code cn.dslcode} starter. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** How long a fencing counter outlives the last acquisition of its key. */
	public static final Duration DEFAULT_FENCE_IDLE_TIMEOUT = Duration.ofMinutes(1);

	private static final RedisScript<List> ACQUIRE = script("acquire.lua", List.class);

	private static final RedisScript<Long> RELEASE = script("release.lua", Long.class);

	private static final RedisScript<Long> RENEW = script("renew.lua", Long.class);

	private final StringRedisTemplate redis;

	private final RedisLockKeys keys;

	private final String fenceIdleMillis;

	private final RedisReleaseListener releaseListener;

	/**
	 * Creates a backend with the default key prefix {@code lock:}.
	 * @param connectionFactory the connections to Redis
	 */
	public RedisLockBackend(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, DEFAULT_KEY_PREFIX, DEFAULT_FENCE_IDLE_TIMEOUT);
	}

	/**
	 * Creates a backend.
	 * @param connectionFactory the connections to Redis
	 * @param keyPrefix the text before each lock key in Redis
	 * @param fenceIdleTimeout how long a key's fencing counter is kept after its last
	 * acquisition
	 */
	public RedisLockBackend(RedisConnectionFactory connectionFactory, String keyPrefix, Duration fenceIdleTimeout) {
		this.redis = new StringRedisTemplate(connectionFactory);
		// Our own callbacks only: they need no close-suppressing proxy of the
		// connection, which the template would otherwise build on every call.
		this.redis.setExposeConnection(true);
		this.keys = new RedisLockKeys(keyPrefix);
		this.fenceIdleMillis = Long.toString(Math.max(1, fenceIdleTimeout.toMillis()));
		this.releaseListener = new RedisReleaseListener(connectionFactory);
	}

	/**
	 * Reads a script once: a script built on a resource checks the resource's last
	 * modification on every call, a class path lookup that cost more CPU than the rest of
	 * the call.
	 */
	private static <T> RedisScript<T> script(String name, Class<T> resultType) {
		try {
			String text = new ClassPathResource(name, RedisLockBackend.class)
				.getContentAsString(StandardCharsets.UTF_8);
			return RedisScript.of(text, resultType);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the Redis script " + name, ex);
		}
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public AcquireResult tryAcquire(String key, String owner, Duration lease) {
		String lockKey = this.keys.lockKey(key);
		List<?> result = this.redis.execute(ACQUIRE, List.of(lockKey, this.keys.fenceKey(lockKey)), owner,
				Long.toString(lease.toMillis()), this.fenceIdleMillis);
		if (result == null || result.size() != 2) {
			throw new IllegalStateException("Unexpected reply to the acquire script: " + result);
		}
		long value = ((Number) result.get(1)).longValue();
		if (((Number) result.get(0)).longValue() == 1) {
			return AcquireResult.acquired(value);
		}
		return AcquireResult.heldByAnother((value > 0) ? Duration.ofMillis(value) : null);
	}

	@Override
	public boolean renew(String key, String owner, Duration lease) {
		Long renewed = this.redis.execute(RENEW, List.of(this.keys.lockKey(key)), owner,
				Long.toString(lease.toMillis()));
		return renewed != null && renewed == 1;
	}

	@Override
	public boolean release(String key, String owner) {
		String lockKey = this.keys.lockKey(key);
		Long released = this.redis.execute(RELEASE, List.of(lockKey), owner, this.keys.releaseChannel(lockKey));
		return released != null && released == 1;
	}

	@Override
	public void awaitRelease(String key, Duration maxWait) throws InterruptedException {
		String lockKey = this.keys.lockKey(key);
		this.releaseListener.await(this.keys.releaseChannel(lockKey), maxWait, (wait) -> {
			Long remaining = this.redis
				.execute((connection) -> connection.keyCommands().pTtl(lockKey.getBytes(StandardCharsets.UTF_8)), true);
			if (remaining == null || remaining == -2) {
				return Duration.ZERO;
			}
			return (remaining > 0 && remaining < wait.toMillis()) ? Duration.ofMillis(remaining + 1) : wait;
		});
	}

	/**
	 * Sends {@code PING}, to every node on Redis Cluster.
	 */
	@Override
	public void ping() {
		String reply = this.redis.execute(RedisConnectionCommands::ping, true);
		if (!"PONG".equals(reply)) {
			throw new IllegalStateException("Redis answered PING with '" + reply + "'");
		}
	}

	@Override
	public void close() throws Exception {
		this.releaseListener.close();
	}

}
