package io.github.distributelock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockStoreProbe;
import io.lettuce.core.ScriptOutputType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A {@link LockBackend} on Redis through Spring Data Redis: the lock is a plain string
 * key {@code <prefix><lock key>} holding the owner token, set with {@code SET NX PX},
 * released and renewed by owner-checked Lua scripts (run by SHA, loaded again when the
 * server has lost them), with waiters woken by a pub/sub message at release.
 * <p>
 * Single node, Sentinel and Cluster work alike: everything one script touches lives in
 * the lock key's hash slot. Every command is sent on Lettuce's asynchronous API, and
 * waiters wait on a subscription, so no thread waits for Redis.
 * <p>
 * Redis replicates asynchronously, so a lock granted by a master that fails before a
 * replica received it is lost when that replica is promoted. With a minimum number of
 * replicas to acknowledge, an acquisition and a renewal are followed by {@code WAIT} on a
 * connection of the backend's own (see {@link RedisReplicaAcks}), and an acquisition that
 * too few replicas acknowledged in time is released and fails.
 * <p>
 * <b>Note:</b> {@code WAIT} does not make Redis strongly consistent: when fewer replicas
 * are required than there are, Sentinel may promote one that had not acknowledged, and a
 * replica that restarts without persistence forgets what it acknowledged.
 *
 * @since 1.0.0
 */
public class RedisLockBackend implements LockBackend, LockStoreProbe, AutoCloseable {

	/** The key prefix of the original {@code cn.dslcode} starter. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** How long a fencing counter outlives the last acquisition of its key. */
	public static final Duration DEFAULT_FENCE_IDLE_TIMEOUT = Duration.ofMinutes(1);

	/** How long to wait for replicas to acknowledge a lock write, when required. */
	public static final Duration DEFAULT_REPLICA_ACK_TIMEOUT = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(RedisLockBackend.class);

	private final RedisScripts redis;

	private final RedisLockKeys keys;

	private final byte[] fenceIdleMillis;

	private final RedisReleaseListener releaseListener;

	private final @Nullable RedisReplicaAcks replicaAcks;

	/**
	 * Creates a backend with the default key prefix {@code lock:}.
	 * @param connectionFactory the connections to Redis, a
	 * {@link org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory}
	 */
	public RedisLockBackend(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, DEFAULT_KEY_PREFIX, DEFAULT_FENCE_IDLE_TIMEOUT);
	}

	/**
	 * Creates a backend.
	 * @param connectionFactory the connections to Redis, a
	 * {@link org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory}
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
	 * @param connectionFactory the connections to Redis, a
	 * {@link org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory};
	 * to a single master (with Sentinel or not) when {@code minReplicasToAck} is above
	 * zero
	 * @param keyPrefix the text before each lock key in Redis
	 * @param fenceIdleTimeout how long a key's fencing counter is kept after its last
	 * acquisition
	 * @param minReplicasToAck how many replicas must acknowledge each acquisition and
	 * renewal, or {@code 0} not to wait for replicas
	 * @param replicaAckTimeout how long to wait for those acknowledgements; positive
	 */
	public RedisLockBackend(RedisConnectionFactory connectionFactory, String keyPrefix, Duration fenceIdleTimeout,
			int minReplicasToAck, Duration replicaAckTimeout) {
		if (minReplicasToAck < 0) {
			throw new IllegalArgumentException("minReplicasToAck must not be negative, was " + minReplicasToAck);
		}
		this.redis = new RedisScripts(connectionFactory);
		this.replicaAcks = (minReplicasToAck > 0)
				? new RedisReplicaAcks(connectionFactory, minReplicasToAck, replicaAckTimeout) : null;
		this.keys = new RedisLockKeys(keyPrefix);
		this.fenceIdleMillis = bytes(Long.toString(Math.max(1, fenceIdleTimeout.toMillis())));
		this.releaseListener = new RedisReleaseListener(connectionFactory);
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		String lockKey = this.keys.lockKey(claim.key());
		// Taken before the attempt: a release heard after it frees the waiter at once.
		RedisReleaseListener.Heard heard = this.releaseListener.heard(this.keys.releaseChannel(lockKey));
		CompletableFuture<List<Object>> reply = (this.replicaAcks != null) ? acquireReplicated(claim, lockKey, lease)
				: this.redis.eval(RedisScripts.ACQUIRE, keys(lockKey, this.keys.fenceKey(lockKey)),
						bytes(claim.owner()), millis(lease), this.fenceIdleMillis);
		return reply.thenApply((result) -> {
			if (result == null || result.size() != 2) {
				throw new IllegalStateException("Unexpected reply to the acquire script: " + result);
			}
			long value = ((Number) result.get(1)).longValue();
			if (((Number) result.get(0)).longValue() == 1) {
				return AcquireResult.acquired(value);
			}
			return AcquireResult.heldByAnother((value > 0) ? Duration.ofMillis(value) : null, heard);
		});
	}

	/**
	 * The script and its {@code WAIT} on one connection to the key's master.
	 */
	private CompletableFuture<List<Object>> acquireReplicated(Claim claim, String lockKey, Duration lease) {
		RedisReplicaAcks acks = this.replicaAcks;
		return acks
			.<List<Object>>evalAsync(RedisScripts.ACQUIRE.redisScript(), ScriptOutputType.MULTI,
					List.of(lockKey, this.keys.fenceKey(lockKey)), RedisLockBackend::acquired, claim.owner(),
					Long.toString(lease.toMillis()), new String(this.fenceIdleMillis, StandardCharsets.UTF_8))
			.toCompletableFuture()
			.thenCompose((replicated) -> acquired(replicated.reply())
					? checkAcquisitionReplicated(acks, replicated, claim).thenApply((checked) -> replicated.reply())
					: CompletableFuture.completedFuture(replicated.reply()));
	}

	private static boolean acquired(@Nullable List<Object> reply) {
		return reply != null && !reply.isEmpty() && reply.get(0) instanceof Number taken && taken.longValue() == 1;
	}

	/**
	 * A lock the replicas have not acknowledged may vanish at the next failover while its
	 * holder goes on, so the caller is not told it holds it: it is given back.
	 */
	private CompletableFuture<Void> checkAcquisitionReplicated(RedisReplicaAcks acks,
			RedisReplicaAcks.Replicated<?> replicated, Claim claim) {
		String key = claim.key();
		Throwable waitFailure = replicated.waitFailure();
		if (waitFailure != null) {
			return releaseAfterFailure(claim,
					new DistributeLockException("Could not learn whether the replicas " + "acknowledged lock '" + key
							+ "' in redis: " + waitFailure.getMessage(), key, name(), waitFailure));
		}
		long acknowledged = replicated.acknowledged();
		if (acknowledged < acks.minReplicas()) {
			return releaseAfterFailure(claim, new DistributeLockException("Lock '" + key
					+ "' was taken on the Redis master but only " + acknowledged + " of the " + acks.minReplicas()
					+ " replicas required (distributelock.redis.min-replicas-to-ack) acknowledged it within "
					+ acks.timeout().toMillis() + " ms, so a failover could lose it; it was released. Check that "
					+ "enough replicas are connected (INFO replication), or raise "
					+ "distributelock.redis.replica-ack-timeout, or lower distributelock.redis.min-replicas-to-ack.",
					key, name(), null));
		}
		return CompletableFuture.completedFuture(null);
	}

	private CompletableFuture<Void> releaseAfterFailure(Claim claim, DistributeLockException failure) {
		return release(claim).toCompletableFuture().handle((released, releaseFailure) -> {
			if (releaseFailure != null) {
				failure.addSuppressed(releaseFailure);
			}
			logger.warn(failure.getMessage());
			throw failure;
		});
	}

	@Override
	public CompletionStage<Boolean> renew(Claim claim, Duration lease) {
		String lockKey = this.keys.lockKey(claim.key());
		RedisReplicaAcks acks = this.replicaAcks;
		if (acks == null) {
			return this.redis.<Long>eval(RedisScripts.RENEW, keys(lockKey), bytes(claim.owner()), millis(lease))
				.thenApply((renewed) -> renewed != null && renewed == 1);
		}
		String key = claim.key();
		return acks
			.<Long>evalAsync(RedisScripts.RENEW.redisScript(), ScriptOutputType.INTEGER, List.of(lockKey),
					(renewed) -> renewed != null && renewed == 1, claim.owner(), Long.toString(lease.toMillis()))
			.thenApply((replicated) -> {
				Long renewed = replicated.reply();
				if (renewed == null || renewed != 1) {
					return false;
				}
				Throwable waitFailure = replicated.waitFailure();
				if (waitFailure != null) {
					throw new DistributeLockException("Could not learn whether the replicas acknowledged the renewal "
							+ "of lock '" + key + "' in redis: " + waitFailure.getMessage(), key, name(), waitFailure);
				}
				// An unacknowledged renewal fails, so that the holder counts its lease
				// from
				// the last renewal a promoted replica would know of, and reports the loss
				// in
				// time.
				long acknowledged = replicated.acknowledged();
				if (acknowledged < acks.minReplicas()) {
					throw new DistributeLockException("The renewal of lock '" + key + "' was acknowledged by only "
							+ acknowledged + " of the " + acks.minReplicas() + " replicas required within "
							+ acks.timeout().toMillis() + " ms", key, name(), null);
				}
				return true;
			});
	}

	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		String lockKey = this.keys.lockKey(claim.key());
		return this.redis
			.<Long>eval(RedisScripts.RELEASE, keys(lockKey), bytes(claim.owner()),
					bytes(this.keys.releaseChannel(lockKey)))
			.thenApply((released) -> released != null && released == 1);
	}

	/**
	 * Waits on the key's release channel. Whether the lock was freed between the attempt
	 * and the subscription is known without asking Redis when the channel was subscribed
	 * since before the attempt; otherwise one {@code EXISTS} tells.
	 */
	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		String lockKey = this.keys.lockKey(claim.key());
		RedisReleaseListener.Heard heard = (lastAttempt.hint() instanceof RedisReleaseListener.Heard known) ? known
				: null;
		return this.releaseListener.await(this.keys.releaseChannel(lockKey), deadline, heard,
				() -> this.redis.<Long>send((commands) -> commands.exists(bytes(lockKey)).toCompletableFuture())
					.thenApply((exists) -> exists == null || exists == 0));
	}

	/**
	 * Sends {@code PING}, to every node on Redis Cluster.
	 */
	@Override
	public void probe() {
		String reply = this.redis.<String>send((commands) -> commands.ping().toCompletableFuture()).join();
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

	private static byte[][] keys(String... keys) {
		byte[][] bytes = new byte[keys.length][];
		for (int i = 0; i < keys.length; i++) {
			bytes[i] = bytes(keys[i]);
		}
		return bytes;
	}

	private static byte[] millis(Duration duration) {
		return bytes(Long.toString(duration.toMillis()));
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
