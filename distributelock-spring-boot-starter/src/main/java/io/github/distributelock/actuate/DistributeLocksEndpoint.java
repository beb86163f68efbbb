package io.github.distributelock.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.HeldLockInfo;
import io.github.distributelock.core.ShardedLockBackend;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The {@code distributelocks} actuator endpoint: the locks this instance holds now.
 * <p>
 * <b>Note:</b> an owner token is all it takes to release a lock through
 * {@link io.github.distributelock.DistributeLock#releaseLock releaseLock}, so owners are
 * shown as {@value SanitizableData#SANITIZED_VALUE} unless {@link Show} says otherwise,
 * as Spring Boot's {@code env} endpoint does with values. Outside the web (JMX),
 * {@link Show#WHEN_AUTHORIZED} shows them; over the web,
 * {@link DistributeLocksEndpointWebExtension} checks the caller's roles.
 *
 * @since 1.0.0
 */
@Endpoint(id = "distributelocks")
public class DistributeLocksEndpoint {

	private final Collection<DefaultDistributeLock> locks;

	private final Show showOwners;

	/**
	 * Creates an endpoint.
	 * @param locks the lock services whose held locks are listed
	 * @param showOwners when to show the owner tokens
	 */
	public DistributeLocksEndpoint(Collection<DefaultDistributeLock> locks, Show showOwners) {
		this.locks = locks;
		this.showOwners = showOwners;
	}

	/**
	 * Lists the locks held now, oldest first.
	 * @return the held locks
	 */
	@ReadOperation
	public HeldLocksDescriptor heldLocks() {
		return heldLocks(this.showOwners.isShown(true));
	}

	HeldLocksDescriptor heldLocks(boolean showOwners) {
		List<HeldLockDescriptor> held = new ArrayList<>();
		for (DefaultDistributeLock lock : this.locks) {
			String backend = lock.backend().name();
			ShardedLockBackend shards = (lock.backend() instanceof ShardedLockBackend sharded) ? sharded : null;
			for (HeldLockInfo info : lock.heldLocks()) {
				held.add(HeldLockDescriptor.of(backend, (shards != null) ? shards.shardOf(info.key()) : null, info,
						showOwners));
			}
		}
		held.sort(Comparator.comparing(HeldLockDescriptor::since));
		return new HeldLocksDescriptor(held);
	}

	/**
	 * The locks this instance holds.
	 *
	 * @param locks the held locks, oldest first
	 */
	public record HeldLocksDescriptor(List<HeldLockDescriptor> locks) implements OperationResponseBody {

	}

	/**
	 * A lock this instance holds.
	 *
	 * @param key the lock key
	 * @param backend the backend that holds it
	 * @param shard the shard of the backend that holds it, or {@code null} when the
	 * backend has no shards
	 * @param owner the owner token in the store, or
	 * {@value SanitizableData#SANITIZED_VALUE} when it is not shown
	 * @param since when it was acquired
	 * @param leaseMs the lease in the store in milliseconds, fixed or renewed by the
	 * watchdog, or {@code null} when the store has no lease (ZooKeeper: the session is
	 * the lease)
	 * @param renewed whether the watchdog renews the lease while the lock is held
	 * @param leaseExpiresAt when the lease runs out unless renewed before, or
	 * {@code null} when the store has no lease
	 * @param fencingToken the fencing token of the acquisition
	 * @param thread the name of the thread that took it, or {@code null} for a lock owned
	 * by a caller's value
	 * @param kind the kind of lock: {@code exclusive}, {@code fair}, {@code read},
	 * {@code write} or {@code permits}
	 * @param permits how many holders the key allows at once: {@code 1} for every kind
	 * but {@code permits}, where this holder holds one of them
	 * @param holds how many times this owner holds it: above {@code 1} when re-entered
	 */
	public record HeldLockDescriptor(String key, String backend, @Nullable String shard, String owner, Instant since,
			@Nullable Long leaseMs, boolean renewed, @Nullable Instant leaseExpiresAt, long fencingToken,
			@Nullable String thread, String kind, int permits, int holds) {

		static HeldLockDescriptor of(String backend, @Nullable String shard, HeldLockInfo info, boolean showOwner) {
			Duration lease = info.lease();
			String owner = showOwner ? info.owner() : SanitizableData.SANITIZED_VALUE;
			return new HeldLockDescriptor(info.key(), backend, shard, owner, info.since(),
					(lease != null) ? lease.toMillis() : null, info.renewed(), info.leaseExpiresAt(),
					info.fencingToken(), info.thread(), info.kind(), info.permits(), info.holds());
		}

	}

}
