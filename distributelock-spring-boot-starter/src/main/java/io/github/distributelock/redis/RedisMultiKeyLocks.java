package io.github.distributelock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.core.MultiKeyAcquireResult;
import io.github.distributelock.redis.RedisKindScripts.Call;
import io.lettuce.core.ScriptOutputType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import static io.github.distributelock.redis.RedisScripts.Script;

/**
 * Several plain locks taken in one script and released in one script
 * ({@code multi-acquire.lua}, {@code multi-release.lua}): each key as {@code acquire.lua}
 * and {@code release.lua} take and release it alone, with the same keys, values, fencing
 * counters and release channels, so single-key and multi-key holders of a key, and nodes
 * of the original starter, exclude each other.
 * <p>
 * A script may touch the keys of one hash slot only on Redis Cluster, so there the keys
 * are batched only when they all hash to one slot (with a common hash tag such as
 * {@code {order-42}}); on a single node and with Sentinel they always are. With replica
 * acknowledgements required, the script is followed by {@code WAIT} as a single
 * acquisition is, and a set that too few replicas acknowledged is released and fails.
 */
final class RedisMultiKeyLocks {

	static final Script ACQUIRE_ALL = Script.read("multi-acquire.lua", ScriptOutputType.MULTI);

	static final Script RELEASE_ALL = Script.read("multi-release.lua", ScriptOutputType.MULTI);

	private static final Log logger = LogFactory.getLog(RedisLockBackend.class);

	private final RedisScripts redis;

	private final RedisLockKeys keys;

	private final RedisKindScripts scripts;

	private final RedisReleaseListener releaseListener;

	private final @Nullable RedisReplicaAcks replicaAcks;

	private final RedisDisconnections disconnections;

	private final boolean cluster;

	private final String backend;

	RedisMultiKeyLocks(RedisScripts redis, RedisLockKeys keys, RedisKindScripts scripts,
			RedisReleaseListener releaseListener, @Nullable RedisReplicaAcks replicaAcks,
			RedisDisconnections disconnections, boolean cluster, String backend) {
		this.redis = redis;
		this.disconnections = disconnections;
		this.keys = keys;
		this.scripts = scripts;
		this.releaseListener = releaseListener;
		this.replicaAcks = replicaAcks;
		this.cluster = cluster;
		this.backend = backend;
	}

	/**
	 * Whether the claims are plain locks that one script can reach together: always on a
	 * single node or with Sentinel, on Redis Cluster when their keys share a hash slot.
	 */
	boolean batches(List<Claim> claims) {
		int slot = -1;
		for (Claim claim : claims) {
			if (claim.kind().type() != LockKind.Type.EXCLUSIVE) {
				return false;
			}
			if (this.cluster) {
				int keySlot = RedisLockKeys.slot(this.keys.lockKey(claim.key()));
				if (slot >= 0 && keySlot != slot) {
					return false;
				}
				slot = keySlot;
			}
		}
		return true;
	}

	CompletableFuture<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases) {
		int count = claims.size();
		String[] scriptKeys = new String[count * 2];
		String[] args = new String[count * 3 + 1];
		List<RedisReleaseListener.@Nullable Heard> heard = new ArrayList<>(count);
		args[0] = this.scripts.fenceIdleMillis();
		for (int i = 0; i < count; i++) {
			Claim claim = claims.get(i);
			String lockKey = this.scripts.lockKey(claim);
			scriptKeys[2 * i] = lockKey;
			scriptKeys[2 * i + 1] = this.keys.fenceKey(lockKey);
			args[3 * i + 1] = claim.owner();
			args[3 * i + 2] = Long.toString(leases.get(i).toMillis());
			args[3 * i + 3] = RedisKindScripts.unique(claim);
			// Taken before the attempt: a release heard after it frees the waiter at
			// once.
			heard.add(this.releaseListener.heard(this.keys.releaseChannel(lockKey)));
		}
		CompletableFuture<List<Object>> reply = (this.replicaAcks != null) ? acquireReplicated(claims, scriptKeys, args)
				: this.redis.eval(ACQUIRE_ALL, RedisScripts.bytes(scriptKeys), RedisScripts.bytes(args));
		return reply.thenApply((answer) -> result(claims, answer, heard));
	}

	/**
	 * Releases the locks. A lock not found that the script answers nobody took since its
	 * hold's fencing token counts as released while a connection of the client dropped
	 * meanwhile: the client sent the release again, and its first run released the lock
	 * (see {@link RedisLockBackend#release}).
	 */
	CompletableFuture<List<Boolean>> releaseAll(List<Claim> claims) {
		int count = claims.size();
		String[] scriptKeys = new String[count * 2];
		String[] args = new String[count * 3];
		for (int i = 0; i < count; i++) {
			Claim claim = claims.get(i);
			String lockKey = this.scripts.lockKey(claim);
			scriptKeys[i] = lockKey;
			scriptKeys[count + i] = this.keys.fenceKey(lockKey);
			args[3 * i] = claim.owner();
			args[3 * i + 1] = this.keys.releaseChannel(lockKey);
			args[3 * i + 2] = Long.toString(claim.fencingToken());
		}
		long disconnectionsBefore = this.disconnections.count();
		RedisReplicaAcks acks = this.replicaAcks;
		// With replicas to acknowledge, on the connection of the attempts, after them, as
		// a single key's release (see RedisLockBackend.release).
		CompletableFuture<List<Object>> sent = (acks != null)
				? acks
					.<List<Object>>evalAsync(RELEASE_ALL.redisScript(), ScriptOutputType.MULTI, List.of(scriptKeys),
							(reply) -> false, args)
					.toCompletableFuture()
					.thenApply(RedisReplicaAcks.Replicated::reply)
				: this.redis.<List<Object>>eval(RELEASE_ALL, RedisScripts.bytes(scriptKeys), RedisScripts.bytes(args));
		return sent.thenApply((reply) -> {
			if (reply == null || reply.size() != count) {
				throw new IllegalStateException("Unexpected reply to the multi-key release script: " + reply);
			}
			List<Boolean> released = new ArrayList<>(count);
			// Read only when a lock was found as a first run would have left it.
			boolean resent = reply.contains(RedisKindScripts.RESENT)
					&& this.disconnections.count() != disconnectionsBefore;
			for (Object each : reply) {
				released.add(RedisKindScripts.released((each instanceof Number number) ? number : null, resent));
			}
			if (resent && logger.isDebugEnabled()) {
				logger.debug("Locks '" + String.join(",", claims.stream().map(Claim::key).toList())
						+ "' were found in redis as a release of them leaves them, and a connection dropped while the "
						+ "release was on its way: the client sent it again after it had run, and they count as "
						+ "released");
			}
			return released;
		});
	}

	/**
	 * What {@code multi-acquire.lua} answered: {@code {1, tokens...}}, or for the first
	 * held key {@code {0, i, ms}} or {@code {-1, i, kind held}}.
	 * @throws io.github.distributelock.LockKindConflictException if that key is held as
	 * another kind
	 */
	private MultiKeyAcquireResult result(List<Claim> claims, @Nullable List<Object> reply,
			List<RedisReleaseListener.@Nullable Heard> heard) {
		if (reply != null && reply.size() == claims.size() + 1 && reply.get(0) instanceof Number taken
				&& taken.longValue() == 1) {
			List<Long> tokens = new ArrayList<>(claims.size());
			for (int i = 1; i < reply.size(); i++) {
				tokens.add(((Number) reply.get(i)).longValue());
			}
			return MultiKeyAcquireResult.acquired(tokens);
		}
		if (reply == null || reply.size() != 3 || !(reply.get(1) instanceof Number position) || position.intValue() < 1
				|| position.intValue() > claims.size()) {
			throw new IllegalStateException("Unexpected reply to the multi-key acquire script: " + reply);
		}
		int index = position.intValue() - 1;
		AcquireResult held = RedisKindScripts.acquireResult(claims.get(index), List.of(reply.get(0), reply.get(2)),
				heard.get(index), this.backend);
		return MultiKeyAcquireResult.heldByAnother(index, held);
	}

	/**
	 * The script and its {@code WAIT} on one connection to the keys' master; a set the
	 * replicas have not acknowledged may vanish at the next failover while its holder
	 * goes on, so it is given back and the attempt fails.
	 */
	private CompletableFuture<List<Object>> acquireReplicated(List<Claim> claims, String[] scriptKeys, String[] args) {
		RedisReplicaAcks acks = this.replicaAcks;
		Call call = new Call(ACQUIRE_ALL, List.of(scriptKeys), List.of(args));
		String key = String.join(",", claims.stream().map(Claim::key).toList());
		return acks
			.<List<Object>>evalAsync(call.redisScript(), ScriptOutputType.MULTI, call.keys(),
					(reply) -> reply != null && !reply.isEmpty() && reply.get(0) instanceof Number taken
							&& taken.longValue() == 1,
					call.argArray())
			.toCompletableFuture()
			.thenCompose((replicated) -> {
				List<Object> reply = replicated.reply();
				if (reply == null || reply.isEmpty() || !(reply.get(0) instanceof Number taken)
						|| taken.longValue() != 1) {
					return CompletableFuture.completedFuture(reply);
				}
				Throwable waitFailure = replicated.waitFailure();
				if (waitFailure != null) {
					return giveBack(claims,
							new DistributeLockException(
									"Could not learn whether the replicas " + "acknowledged locks '" + key
											+ "' in redis: " + waitFailure.getMessage(),
									key, this.backend, waitFailure));
				}
				if (replicated.acknowledged() < acks.minReplicas()) {
					return giveBack(claims, new DistributeLockException("Locks '" + key + "' were taken on the "
							+ "Redis master but only " + replicated.acknowledged() + " of the " + acks.minReplicas()
							+ " replicas required (distributelock.redis.min-replicas-to-ack) acknowledged them "
							+ "within " + acks.timeout().toMillis() + " ms, so a failover could lose them; they were "
							+ "released. Check that enough replicas are connected (INFO replication), or raise "
							+ "distributelock.redis.replica-ack-timeout, or lower "
							+ "distributelock.redis.min-replicas-to-ack.", key, this.backend, null));
				}
				return CompletableFuture.completedFuture(reply);
			});
	}

	private CompletableFuture<List<Object>> giveBack(List<Claim> claims, DistributeLockException failure) {
		return releaseAll(claims).handle((released, releaseFailure) -> {
			if (releaseFailure != null) {
				failure.addSuppressed(releaseFailure);
			}
			logger.warn(failure.getMessage());
			throw failure;
		});
	}

}
