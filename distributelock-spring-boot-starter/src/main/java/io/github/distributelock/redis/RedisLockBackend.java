package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend;
import io.lettuce.core.ScriptOutputType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

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
 * <p>
 * Redis replicates asynchronously, so a lock granted by a master that fails before a
 * replica received it is lost when that replica is promoted. With a minimum number of
 * replicas to acknowledge, an acquisition and a renewal are followed by {@code WAIT} on a
 * connection of the backend's own to the key's master, on Redis Cluster too (see
 * {@link RedisReplicaAcks}), and an acquisition that too few replicas acknowledged in
 * time is released and fails.
 * <p>
 * <b>Note:</b> {@code WAIT} does not make Redis strongly consistent: when fewer replicas
 * are required than there are, Sentinel or the cluster may promote one that had not
 * acknowledged, and a replica that restarts without persistence forgets what it
 * acknowledged.
 *
 * @author distributelock
 * @since 1.0.0
 */
public class RedisLockBackend implements LockBackend, AutoCloseable {

	/** The key prefix of the original {@code cn.dslcode} starter. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** How long a fencing counter outlives the last acquisition of its key. */
	public static final Duration DEFAULT_FENCE_IDLE_TIMEOUT = Duration.ofMinutes(1);

	/** How long to wait for replicas to acknowledge a lock write, when required. */
	public static final Duration DEFAULT_REPLICA_ACK_TIMEOUT = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(RedisLockBackend.class);

	private static final RedisScript<List> ACQUIRE = script("acquire.lua", List.class);

	private static final RedisScript<Long> RELEASE = script("release.lua", Long.class);

	private static final RedisScript<Long> RENEW = script("renew.lua", Long.class);

	private final StringRedisTemplate redis;

	private final RedisLockKeys keys;

	private final String fenceIdleMillis;

	private final RedisReleaseListener releaseListener;

	private final @Nullable RedisReplicaAcks replicaAcks;

	/**
	 * What this thread's last failed attempt knew of the key's release channel, for the
	 * wait that follows it.
	 */
	private final ThreadLocal<RedisReleaseListener.@Nullable Heard> heardBeforeAttempt = new ThreadLocal<>();

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
		this(connectionFactory, keyPrefix, fenceIdleTimeout, 0, DEFAULT_REPLICA_ACK_TIMEOUT);
	}

	/**
	 * Creates a backend that, with {@code minReplicasToAck} above zero, holds a lock only
	 * once that many replicas acknowledged it.
	 * @param connectionFactory the connections to Redis; a
	 * {@link org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory}
	 * when {@code minReplicasToAck} is above zero
	 * @param keyPrefix the text before each lock key in Redis
	 * @param fenceIdleTimeout how long a key's fencing counter is kept after its last
	 * acquisition
	 * @param minReplicasToAck how many replicas must acknowledge each acquisition and
	 * renewal, or {@code 0} not to wait for replicas
	 * @param replicaAckTimeout how long to wait for those acknowledgements; positive
	 * @since 1.0.0
	 */
	public RedisLockBackend(RedisConnectionFactory connectionFactory, String keyPrefix, Duration fenceIdleTimeout,
			int minReplicasToAck, Duration replicaAckTimeout) {
		if (minReplicasToAck < 0) {
			throw new IllegalArgumentException("minReplicasToAck must not be negative, was " + minReplicasToAck);
		}
		this.replicaAcks = (minReplicasToAck > 0)
				? new RedisReplicaAcks(connectionFactory, minReplicasToAck, replicaAckTimeout) : null;
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
		List<String> scriptKeys = List.of(lockKey, this.keys.fenceKey(lockKey));
		String leaseMillis = Long.toString(lease.toMillis());
		RedisReplicaAcks acks = this.replicaAcks;
		RedisReleaseListener.Heard heard = this.releaseListener.isListening()
				? this.releaseListener.heard(this.keys.releaseChannel(lockKey)) : null;
		RedisReplicaAcks.Replicated<List<Object>> replicated = (acks != null)
				? acks.eval(ACQUIRE, ScriptOutputType.MULTI, scriptKeys, RedisLockBackend::acquired, owner, leaseMillis,
						this.fenceIdleMillis)
				: null;
		List<?> result = (replicated != null) ? replicated.reply()
				: this.redis.execute(ACQUIRE, scriptKeys, owner, leaseMillis, this.fenceIdleMillis);
		if (result == null || result.size() != 2) {
			throw new IllegalStateException("Unexpected reply to the acquire script: " + result);
		}
		long value = ((Number) result.get(1)).longValue();
		if (((Number) result.get(0)).longValue() == 1) {
			if (acks != null && replicated != null) {
				checkAcquisitionReplicated(acks, replicated, key, owner);
			}
			return AcquireResult.acquired(value);
		}
		this.heardBeforeAttempt.set(heard);
		return AcquireResult.heldByAnother((value > 0) ? Duration.ofMillis(value) : null);
	}

	private static boolean acquired(@Nullable List<Object> reply) {
		return reply != null && !reply.isEmpty() && reply.get(0) instanceof Number taken && taken.longValue() == 1;
	}

	/**
	 * A lock the replicas have not acknowledged may vanish at the next failover while its
	 * holder goes on, so the caller is not told it holds it: it is given back.
	 */
	private void checkAcquisitionReplicated(RedisReplicaAcks acks, RedisReplicaAcks.Replicated<?> replicated,
			String key, String owner) {
		Throwable waitFailure = replicated.waitFailure();
		if (waitFailure != null) {
			throw releaseAfterFailure(key, owner,
					new DistributeLockException("Could not learn whether the replicas " + "acknowledged lock '" + key
							+ "' in redis: " + waitFailure.getMessage(), key, name(), waitFailure));
		}
		long acknowledged = replicated.acknowledged();
		if (acknowledged < acks.minReplicas()) {
			throw releaseAfterFailure(key, owner, new DistributeLockException("Lock '" + key
					+ "' was taken on the Redis master but only " + acknowledged + " of the " + acks.minReplicas()
					+ " replicas required (distributelock.redis.min-replicas-to-ack) acknowledged it within "
					+ acks.timeout().toMillis() + " ms, so a failover could lose it; it was released. Check that "
					+ "enough replicas are connected (INFO replication), or raise "
					+ "distributelock.redis.replica-ack-timeout, or lower distributelock.redis.min-replicas-to-ack.",
					key, name(), null));
		}
	}

	private DistributeLockException releaseAfterFailure(String key, String owner, DistributeLockException failure) {
		try {
			release(key, owner);
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
		}
		logger.warn(failure.getMessage());
		return failure;
	}

	@Override
	public boolean renew(String key, String owner, Duration lease) {
		List<String> scriptKeys = List.of(this.keys.lockKey(key));
		String leaseMillis = Long.toString(lease.toMillis());
		RedisReplicaAcks acks = this.replicaAcks;
		if (acks == null) {
			Long renewed = this.redis.execute(RENEW, scriptKeys, owner, leaseMillis);
			return renewed != null && renewed == 1;
		}
		RedisReplicaAcks.Replicated<Long> replicated = acks.eval(RENEW, ScriptOutputType.INTEGER, scriptKeys,
				(renewed) -> renewed != null && renewed == 1, owner, leaseMillis);
		Long renewed = replicated.reply();
		if (renewed == null || renewed != 1) {
			return false;
		}
		Throwable waitFailure = replicated.waitFailure();
		if (waitFailure != null) {
			throw new DistributeLockException("Could not learn whether the replicas acknowledged the renewal of lock '"
					+ key + "' in redis: " + waitFailure.getMessage(), key, name(), waitFailure);
		}
		// An unacknowledged renewal fails, so that the holder counts its lease from the
		// last renewal a promoted replica would know of, and reports the loss in time.
		long acknowledged = replicated.acknowledged();
		if (acknowledged < acks.minReplicas()) {
			throw new DistributeLockException(
					"The renewal of lock '" + key + "' was acknowledged by only " + acknowledged + " of the "
							+ acks.minReplicas() + " replicas required within " + acks.timeout().toMillis() + " ms",
					key, name(), null);
		}
		return true;
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
		RedisReleaseListener.Heard heard = this.heardBeforeAttempt.get();
		this.heardBeforeAttempt.remove();
		this.releaseListener.await(this.keys.releaseChannel(lockKey), maxWait, heard, (wait) -> {
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
		try {
			this.releaseListener.close();
		}
		finally {
			if (this.replicaAcks != null) {
				this.replicaAcks.close();
			}
		}
	}

}
