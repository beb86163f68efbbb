package io.github.distributelock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.HandOverLockBackend;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockStoreProbe;
import io.github.distributelock.core.MultiKeyAcquireResult;
import io.github.distributelock.core.MultiKeyLockBackend;
import io.github.distributelock.core.StoreClientThreads;
import io.github.distributelock.redis.RedisKindScripts.Call;
import io.lettuce.core.ScriptOutputType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A {@link LockBackend} on Redis through Spring Data Redis: the lock is a plain string
 * key {@code <prefix><lock key>} holding the owner token, set with {@code SET NX PX},
 * released and renewed by owner-checked Lua scripts (run by SHA, loaded again when the
 * server has lost them), with waiters woken by a pub/sub message at release.
 * <p>
 * The other {@link io.github.distributelock.core.LockKind kinds} hold the same key while
 * they hold the lock, so that every kind excludes plain holders (nodes of the original
 * starter included): fair and write locks with a marker and their owner, waiters queued
 * beside it in arrival order with leases of their own; readers and permit holders with a
 * marker and the owner while the first holds the key alone, and with a marker, counted
 * beside it with a lease each, once a second came (see {@link RedisKindScripts}).
 * <p>
 * A lock released while another caller of this JVM waits for the key is handed to it in
 * the same script ({@link #handOver}): the key never looks free to other instances in
 * between, and the hand-off costs one round trip.
 * <p>
 * Single node, Sentinel and Cluster work alike: everything one script touches lives in
 * the lock key's hash slot. The keys of a multi-key request are taken in one script and
 * released in one ({@link RedisMultiKeyLocks}); on Cluster only when they share a hash
 * slot. Every command is sent on Lettuce's asynchronous API, and waiters wait on a
 * subscription, so no thread waits for Redis.
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
public class RedisLockBackend
		implements HandOverLockBackend, MultiKeyLockBackend, LockStoreProbe, StoreClientThreads, AutoCloseable {

	/** The key prefix of the original {@code cn.dslcode} starter. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** How long a fencing counter outlives the last acquisition of its key. */
	public static final Duration DEFAULT_FENCE_IDLE_TIMEOUT = Duration.ofMinutes(1);

	/** How long to wait for replicas to acknowledge a lock write, when required. */
	public static final Duration DEFAULT_REPLICA_ACK_TIMEOUT = Duration.ofSeconds(1);

	private static final Log logger = LogFactory.getLog(RedisLockBackend.class);

	private final RedisAnswerThreads answerThreads = new RedisAnswerThreads();

	private final RedisScripts redis;

	private final RedisLockKeys keys;

	private final RedisKindScripts scripts;

	private final RedisReleaseListener releaseListener;

	private final @Nullable RedisReplicaAcks replicaAcks;

	private final RedisMultiKeyLocks multiKey;

	private final RedisDisconnections disconnections;

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
	 * @param replicaAckTimeout how long to wait for those acknowledgements; at least 1 ms
	 * when {@code minReplicasToAck} is above zero
	 */
	public RedisLockBackend(RedisConnectionFactory connectionFactory, String keyPrefix, Duration fenceIdleTimeout,
			int minReplicasToAck, Duration replicaAckTimeout) {
		this(connectionFactory, keyPrefix, fenceIdleTimeout, minReplicasToAck, replicaAckTimeout,
				RedisKindScripts.WAITER_LEASE);
	}

	/**
	 * With another waiter lease than {@link RedisKindScripts#WAITER_LEASE}: a test's
	 * waiter that crashes leaves the queue sooner.
	 */
	RedisLockBackend(RedisConnectionFactory connectionFactory, String keyPrefix, Duration fenceIdleTimeout,
			int minReplicasToAck, Duration replicaAckTimeout, Duration waiterLease) {
		if (keyPrefix == null) {
			// A null would be written into every key as the text "null".
			throw new IllegalArgumentException("keyPrefix must not be null; use \"\" for keys without a prefix");
		}
		if (minReplicasToAck < 0) {
			throw new IllegalArgumentException("minReplicasToAck must not be negative, was " + minReplicasToAck);
		}
		this.redis = new RedisScripts(connectionFactory, this.answerThreads);
		this.disconnections = new RedisDisconnections((LettuceConnectionFactory) connectionFactory);
		this.replicaAcks = (minReplicasToAck > 0)
				? new RedisReplicaAcks(connectionFactory, minReplicasToAck, replicaAckTimeout, this.answerThreads)
				: null;
		this.keys = new RedisLockKeys(keyPrefix);
		this.scripts = new RedisKindScripts(this.keys, fenceIdleTimeout, waiterLease);
		this.releaseListener = new RedisReleaseListener(connectionFactory, this.answerThreads);
		this.multiKey = new RedisMultiKeyLocks(this.redis, this.keys, this.scripts, this.releaseListener,
				this.replicaAcks, this.disconnections, ((LettuceConnectionFactory) connectionFactory).isClusterAware(),
				name());
	}

	@Override
	public String name() {
		return "redis";
	}

	@Override
	public CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease) {
		Call call = this.scripts.acquire(claim, lease);
		// Taken before the attempt: a release heard after it frees the waiter at once.
		RedisReleaseListener.Heard heard = this.releaseListener
			.heard(this.keys.releaseChannel(this.keys.lockKey(claim.key())));
		CompletableFuture<List<Object>> reply = (this.replicaAcks != null) ? acquireReplicated(claim, call)
				: this.redis.eval(call.script(), call.keyBytes(), call.argBytes());
		return reply.thenApply((result) -> RedisKindScripts.acquireResult(claim, result, heard, name()));
	}

	/**
	 * The script and its {@code WAIT} on one connection to the key's master.
	 */
	private CompletableFuture<List<Object>> acquireReplicated(Claim claim, Call call) {
		RedisReplicaAcks acks = this.replicaAcks;
		return acks
			.<List<Object>>evalAsync(call.redisScript(), ScriptOutputType.MULTI, call.keys(),
					RedisLockBackend::acquired, call.argArray())
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
		Call call = this.scripts.renew(claim, lease);
		RedisReplicaAcks acks = this.replicaAcks;
		if (acks == null) {
			return this.redis.<Long>eval(call.script(), call.keyBytes(), call.argBytes())
				.thenApply((renewed) -> renewed != null && renewed == 1);
		}
		String key = claim.key();
		return acks
			.<Long>evalAsync(call.redisScript(), ScriptOutputType.INTEGER, call.keys(),
					(renewed) -> renewed != null && renewed == 1, call.argArray())
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
				// from the last renewal a promoted replica would know of, and reports the
				// loss in time.
				long acknowledged = replicated.acknowledged();
				if (acknowledged < acks.minReplicas()) {
					throw new DistributeLockException("The renewal of lock '" + key + "' was acknowledged by only "
							+ acknowledged + " of the " + acks.minReplicas() + " replicas required within "
							+ acks.timeout().toMillis() + " ms", key, name(), null);
				}
				return true;
			});
	}

	/**
	 * Passes the lock in one script ({@code hand-over.lua}). With replicas to
	 * acknowledge, a lock is held only once they acknowledged it, so the lock is released
	 * and the next claim attempts, as without a hand-over.
	 */
	@Override
	public CompletionStage<HandOver> handOver(Claim holder, Claim next, Duration lease) {
		if (this.replicaAcks != null) {
			return release(holder).thenCompose(
					(released) -> tryAcquire(next, lease).thenApply((attempt) -> new HandOver(released, attempt)));
		}
		Call call = this.scripts.handOver(holder, next, lease);
		RedisReleaseListener.Heard heard = this.releaseListener
			.heard(this.keys.releaseChannel(this.keys.lockKey(next.key())));
		long disconnectionsBefore = this.disconnections.count();
		return this.redis.<List<Object>>eval(call.script(), call.keyBytes(), call.argBytes())
			.thenApply((reply) -> RedisKindScripts.handOverResult(next, reply, heard, name(),
					resent(holder, (reply != null && !reply.isEmpty()) ? reply.get(0) : null, disconnectionsBefore)));
	}

	/**
	 * Releases the lock. Lettuce sends a release again when its connection dropped before
	 * the answer, and a copy whose first run deleted the lock finds it gone. The script
	 * then tells whether nobody took the key since this hold's fencing token, and a lock
	 * so found while a connection of the client dropped counts as released: the lock
	 * ended, whether by this release or by its lease just before it. A reader or a permit
	 * holder shares the counter with the key's other holders, so its release finds its
	 * own earlier run among the key's recent releases instead, which only a release of
	 * this hold writes: that counts as released whether a connection dropped or not.
	 */
	@Override
	public CompletionStage<Boolean> release(Claim claim) {
		Call call = this.scripts.release(claim);
		long disconnectionsBefore = this.disconnections.count();
		RedisReplicaAcks acks = this.replicaAcks;
		if (acks != null) {
			// On the connection of the attempts, after them: an attempt that queued there
			// behind another's WAIT past the command timeout still runs once that WAIT
			// ends, and its give-back sent on another connection ran before it, which
			// left the lock in the store, held by nobody, for its lease.
			return acks
				.<Long>evalAsync(call.redisScript(), call.script().output(), call.keys(), (released) -> false,
						call.argArray())
				.thenApply((replicated) -> RedisKindScripts.released(replicated.reply(),
						resent(claim, replicated.reply(), disconnectionsBefore)));
		}
		return this.redis.<Long>eval(call.script(), call.keyBytes(), call.argBytes())
			.thenApply(
					(released) -> RedisKindScripts.released(released, resent(claim, released, disconnectionsBefore)));
	}

	/**
	 * Whether a script that answered {@code reply} for {@code holder} may have been sent
	 * again by the client after its first run: a connection dropped since
	 * {@code disconnectionsBefore}. Read only for an answer that the lock was found as
	 * that first run would have left it, so a release of a held lock costs no more.
	 */
	private boolean resent(Claim holder, @Nullable Object reply, long disconnectionsBefore) {
		if (!(reply instanceof Number answer) || answer.longValue() != RedisKindScripts.RESENT) {
			return false;
		}
		boolean resent = this.disconnections.count() != disconnectionsBefore;
		if (resent && logger.isDebugEnabled()) {
			logger.debug("Lock '" + holder.key() + "' was found in redis as a release of it leaves it, and a "
					+ "connection dropped while the release was on its way: the client sent it again after it had "
					+ "run, and it counts as released");
		}
		return resent;
	}

	@Override
	public boolean batches(List<Claim> claims) {
		return this.multiKey.batches(claims);
	}

	@Override
	public CompletionStage<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases) {
		return this.multiKey.tryAcquireAll(claims, leases);
	}

	@Override
	public CompletionStage<List<Boolean>> releaseAll(List<Claim> claims) {
		return this.multiKey.releaseAll(claims);
	}

	/**
	 * Waits on the key's release channel. Whether the lock was freed (or its lease cut)
	 * between the attempt and the subscription is known without asking Redis when the
	 * channel was subscribed since before the attempt; otherwise one {@code PTTL} tells,
	 * and a reader or a permit waiter, which a holder leaving may let in while others
	 * stay, attempts again at once.
	 */
	@Override
	public CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		String lockKey = this.keys.lockKey(claim.key());
		RedisReleaseListener.Heard heard = (lastAttempt.hint() instanceof RedisReleaseListener.Heard known) ? known
				: null;
		return this.releaseListener.await(this.keys.releaseChannel(lockKey), deadline, heard,
				() -> RedisKindScripts.freedWithTheLockWord(claim.kind())
						? this.redis.<Long>send((commands) -> commands.pttl(bytes(lockKey)).toCompletableFuture())
							.thenApply(RedisLockBackend::leaseLeft)
						: CompletableFuture.completedFuture(0L));
	}

	/** The lease left by a reply to {@code PTTL}: -2 for no key, -1 for no expiry. */
	private static long leaseLeft(@Nullable Long pttl) {
		if (pttl == null || pttl == -2) {
			return 0;
		}
		return (pttl == -1) ? Long.MAX_VALUE : Math.max(pttl, 1);
	}

	/**
	 * The event loops of the Redis client that have delivered this backend's answers or
	 * release messages: every answer is learnt from before a caller's code runs on it.
	 */
	@Override
	public boolean deliversAnswersOn(Thread thread) {
		return this.answerThreads.contains(thread);
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

	/**
	 * Makes release subscriptions again after {@link #pauseReleaseSubscriptions()}.
	 */
	public void resumeReleaseSubscriptions() {
		this.releaseListener.resume();
	}

	/**
	 * Makes no more release subscriptions, once one under way has ended (waited for up to
	 * 2 s): called as the application stops, after the lock service and before the
	 * connection factory, so that no subscription is attempted on a factory about to stop
	 * (one that the factory's stop reaches anyway fails quietly and is not retried).
	 * Waits still end at their deadline or the holder's lease.
	 */
	public void pauseReleaseSubscriptions() {
		this.releaseListener.pause();
	}

	/**
	 * Whether release subscriptions are paused.
	 * @return whether {@link #pauseReleaseSubscriptions()} was called last
	 */
	public boolean releaseSubscriptionsPaused() {
		return this.releaseListener.isPaused();
	}

	@Override
	public void close() throws Exception {
		try {
			this.disconnections.close();
			this.releaseListener.close();
		}
		finally {
			try {
				this.redis.close();
			}
			finally {
				if (this.replicaAcks != null) {
					this.replicaAcks.close();
				}
			}
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
