package io.github.distributelock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockTracker;
import io.github.distributelock.redis.EmbeddedRedisSentinel;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.redis.RedisSubscribers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A Redis master with one replica under a Sentinel, the master killed with SIGKILL while
 * locks are held, the replica promoted: what happens to the locks, with and without
 * {@code min-replicas-to-ack} ({@code WAIT} after each acquisition). Each test starts a
 * topology of its own, as it kills the master, some with the replication going through a
 * proxy it cuts.
 */
class RedisSentinelFailoverTests {

	private static final Log logger = LogFactory.getLog(RedisSentinelFailoverTests.class);

	/** Longer than a failover, so that a lock the promoted replica has outlives it. */
	private static final Duration LEASE = Duration.ofSeconds(10);

	/**
	 * Ample for a replica in sync to acknowledge on a loaded machine (500 ms was once
	 * not), and below the connections' 2 s command timeout.
	 */
	private static final Duration REPLICA_ACK_TIMEOUT = Duration.ofMillis(1500);

	private static final Duration FAILOVER = Duration.ofSeconds(20);

	private static final int LOCKS = 20;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private <T extends AutoCloseable> T closeAfter(T closeable) {
		return this.closeables.add(closeable);
	}

	private DefaultDistributeLock newLock(EmbeddedRedisSentinel redis, int minReplicasToAck) {
		return newLock(redis, minReplicasToAck, LockEventListener.NONE);
	}

	private DefaultDistributeLock newLock(EmbeddedRedisSentinel redis, int minReplicasToAck, LockEventListener events) {
		RedisLockBackend backend = closeAfter(
				new RedisLockBackend(redis.newSentinelConnectionFactory(), RedisLockBackend.DEFAULT_KEY_PREFIX,
						RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT, minReplicasToAck, REPLICA_ACK_TIMEOUT));
		return closeAfter(new DefaultDistributeLock(backend, LEASE, false, events, null));
	}

	@ParameterizedTest(name = "min-replicas-to-ack={0}")
	@ValueSource(ints = { 0, 1 })
	void heldLocksThatReachedTheReplicaSurviveTheMasterKillAndStayExclusive(int minReplicasToAck) throws Exception {
		EmbeddedRedisSentinel redis = closeAfter(EmbeddedRedisSentinel.start());
		Map<String, Long> lastRenewal = new ConcurrentHashMap<>();
		DefaultDistributeLock holder = newLock(redis, minReplicasToAck, (lockKey, name, backend) -> new LockTracker() {

			@Override
			public void renewed() {
				lastRenewal.put(lockKey, System.nanoTime());
			}

		});
		DefaultDistributeLock other = newLock(redis, minReplicasToAck);
		List<LockHandle> handles = new ArrayList<>();
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < LOCKS; i++) {
			String key = "failover." + i;
			keys.add(key);
			handles.add(holder.tryAcquire(key, Duration.ZERO, null).orElseThrow());
		}
		// Killed right after the last acquisition, to give replication lag its best
		// chance.
		long killed = System.nanoTime();
		redis.killMaster();
		await("promotion").atMost(FAILOVER)
			.ignoreExceptions()
			.until(() -> redis.currentMasterPort() == redis.replicaPort());
		long promotedMillis = millisSince(killed);
		StringRedisTemplate promoted = redis.template(redis.replicaPort());
		int survived = 0;
		for (String key : keys) {
			if (Boolean.TRUE.equals(promoted.hasKey(lockKey(key)))) {
				survived++;
			}
		}
		// The promoted master has no replica left: with min-replicas-to-ack nothing can
		// be acknowledged until one is back.
		redis.addReplicaOfPromotedMaster();
		await("locks again").atMost(FAILOVER).ignoreExceptions().until(() -> {
			Optional<LockHandle> probe = other.tryAcquire("failover.probe", Duration.ZERO, null);
			probe.ifPresent(LockHandle::close);
			return probe.isPresent();
		});
		long locking = System.nanoTime();
		long lockingMillis = millisSince(killed);
		// A renewal on the promoted master tells every holder whether its lock is there.
		await("every holder renewed on the promoted master or heard of the loss").atMost(LEASE).until(() -> {
			for (int i = 0; i < LOCKS; i++) {
				Long renewed = lastRenewal.get(keys.get(i));
				if (handles.get(i).isHeld() && (renewed == null || renewed - locking < 0)) {
					return false;
				}
			}
			return true;
		});
		int stillHeld = 0;
		for (int i = 0; i < LOCKS; i++) {
			if (handles.get(i).isHeld()) {
				stillHeld++;
				assertThat(other.tryAcquire(keys.get(i), Duration.ZERO, null)).as("a held lock stays exclusive")
					.isEmpty();
			}
		}
		logger.info("Sentinel failover (min-replicas-to-ack=" + minReplicasToAck + "): replica promoted "
				+ promotedMillis + " ms after the master was killed, locks taken again after " + lockingMillis
				+ " ms (a new replica added in between); " + survived + " of " + LOCKS
				+ " held locks were on the promoted master, " + stillHeld + " still held");
		assertThat(promotedMillis).isGreaterThanOrEqualTo(EmbeddedRedisSentinel.DOWN_AFTER.toMillis());
		if (minReplicasToAck > 0) {
			// Each was acknowledged by the only replica, the one promoted.
			assertThat(survived).isEqualTo(LOCKS);
		}
		assertThat(stillHeld).isEqualTo(survived);
		handles.forEach(LockHandle::close);
	}

	@Test
	void withoutReplicaAcksALockTheReplicaNeverGotIsGrantedAgainAfterFailoverWhileItsHolderStillHoldsIt()
			throws Exception {
		TcpProxy[] replication = new TcpProxy[1];
		EmbeddedRedisSentinel redis = closeAfter(EmbeddedRedisSentinel
			.start((masterPort) -> closeAfter(replication[0] = TcpProxy.start(masterPort)).port()));
		DefaultDistributeLock holder = newLock(redis, 0);
		StringRedisTemplate replica = redis.template(redis.replicaPort());
		String key = "window.unacknowledged";
		// A key locked before: its fencing counter, and so its last token, are on the
		// replica too.
		holder.tryAcquire(key, Duration.ZERO, null).orElseThrow().close();
		await("fencing counter replicated").atMost(Duration.ofSeconds(10)).until(() -> replica.hasKey(fenceKey(key)));
		cutReplication(replication[0], replica);

		LockHandle held = holder.tryAcquire(key, Duration.ZERO, LEASE.multipliedBy(3)).orElseThrow();
		assertThat(redis.template(redis.masterPort()).hasKey(lockKey(key))).isTrue();
		assertThat(replica.hasKey(lockKey(key))).isFalse();

		long killed = System.nanoTime();
		redis.killMaster();
		await("promotion").atMost(FAILOVER)
			.ignoreExceptions()
			.until(() -> redis.currentMasterPort() == redis.replicaPort());
		logger.info("Sentinel failover with the replica cut off: replica promoted " + millisSince(killed)
				+ " ms after the master was killed");

		DefaultDistributeLock other = newLock(redis, 0);
		Optional<LockHandle> taken = other.tryAcquire(key, Duration.ofSeconds(10), null);
		// The honest outcome: mutual exclusion is broken. The first caller was told it
		// holds the lock for its whole lease, and another client holds it too.
		assertThat(taken).isPresent();
		assertThat(held.isHeld()).isTrue();
		logger.info("Without min-replicas-to-ack: the lock was granted again " + millisSince(killed)
				+ " ms after the master was killed while its first holder still held it (token " + held.fencingToken()
				+ " then " + taken.get().fencingToken() + ")");
		// What fencing is for: the resource can still tell the two holders apart.
		assertThat(taken.get().fencingToken()).isGreaterThan(held.fencingToken());
		taken.get().close();
	}

	@Test
	void withOneReplicaToAckTheAcquisitionTheReplicaDidNotAcknowledgeFailsAndLeavesNothingLocked() throws Exception {
		TcpProxy[] replication = new TcpProxy[1];
		EmbeddedRedisSentinel redis = closeAfter(EmbeddedRedisSentinel
			.start((masterPort) -> closeAfter(replication[0] = TcpProxy.start(masterPort)).port()));
		DefaultDistributeLock holder = newLock(redis, 1);
		StringRedisTemplate replica = redis.template(redis.replicaPort());
		StringRedisTemplate master = redis.template(redis.masterPort());
		String key = "window.acknowledged";
		try (LockHandle replicated = holder.tryAcquire(key + ".before", Duration.ZERO, null).orElseThrow()) {
			assertThat(replica.hasKey(lockKey(key + ".before"))).isTrue();
		}
		// The keys of a multi-key request, in one script on Sentinel's master and one
		// WAIT.
		try (LockHandle replicated = holder
			.tryAcquire(LockRequest.all(LockRequest.of(key + ".before-a"), LockRequest.of(key + ".before-b")))
			.orElseThrow()) {
			assertThat(replica.hasKey(lockKey(key + ".before-a")) && replica.hasKey(lockKey(key + ".before-b")))
				.isTrue();
		}
		cutReplication(replication[0], replica);

		long start = System.nanoTime();
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(() -> holder.tryAcquire(key, Duration.ZERO, LEASE.multipliedBy(3)))
			.withMessageContaining("'" + key + "'")
			.withMessageContaining("only 0 of the 1 replicas")
			.withMessageContaining("distributelock.redis.min-replicas-to-ack")
			.satisfies((ex) -> assertThat(ex.getLockKey()).isEqualTo(key));
		long failedMillis = millisSince(start);
		logger.info("With min-replicas-to-ack=1 and the replica cut off, the acquisition failed after " + failedMillis
				+ " ms (replica-ack-timeout " + REPLICA_ACK_TIMEOUT.toMillis() + " ms)");
		assertThat(failedMillis).isGreaterThanOrEqualTo(REPLICA_ACK_TIMEOUT.toMillis());
		assertThat(master.hasKey(lockKey(key))).as("nothing left locked on the master").isFalse();
		assertThat(holder.heldLocks()).isEmpty();
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(
					() -> holder.tryAcquire(LockRequest.all(LockRequest.of(key + ".a"), LockRequest.of(key + ".b"))))
			.withMessageContaining("Locks '" + key + ".a," + key + ".b' were taken on the Redis master")
			.withMessageContaining("only 0 of the 1 replicas");
		assertThat(master.hasKey(lockKey(key + ".a")) || master.hasKey(lockKey(key + ".b")))
			.as("no key of the multi-key request left on the master")
			.isFalse();
		assertThat(holder.heldLocks()).isEmpty();

		redis.killMaster();
		await("promotion").atMost(FAILOVER)
			.ignoreExceptions()
			.until(() -> redis.currentMasterPort() == redis.replicaPort());
		assertThat(replica.hasKey(lockKey(key))).as("nothing locked on the promoted master").isFalse();
		DefaultDistributeLock other = newLock(redis, 0);
		try (LockHandle taken = other.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow()) {
			assertThat(taken.isHeld()).isTrue();
		}
	}

	/**
	 * Waiters listen on one subscriber connection, to the master: it dies with the
	 * master, and a release on the promoted master reaches only a client that subscribed
	 * again there. The holder's lease outlasts the waiter's wait, so only the release
	 * message can let it in.
	 */
	@Test
	void aWaiterIsWokenByAReleaseOnThePromotedMaster() throws Exception {
		EmbeddedRedisSentinel redis = closeAfter(EmbeddedRedisSentinel.start());
		RedisLockBackend holderBackend = closeAfter(new RedisLockBackend(redis.newSentinelConnectionFactory()));
		DefaultDistributeLock holder = closeAfter(
				new DefaultDistributeLock(holderBackend, Duration.ofSeconds(90), false, LockEventListener.NONE, null));
		DefaultDistributeLock waiter = newLock(redis, 0);
		String key = "woken.after.failover";
		String channel = lockKey(key) + ":released";
		StringRedisTemplate master = redis.template(redis.masterPort());
		StringRedisTemplate replica = redis.template(redis.replicaPort());
		LockHandle held = holder.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		await("the lock on the replica").atMost(FAILOVER).until(() -> replica.hasKey(lockKey(key)));
		CompletableFuture<Optional<LockHandle>> waiting = CompletableFuture.supplyAsync(() -> {
			try {
				return waiter.tryAcquire(key, Duration.ofSeconds(45), null);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		});
		await("the waiter subscribed").atMost(FAILOVER).until(() -> RedisSubscribers.of(master, channel) > 0);
		long killed = System.nanoTime();
		redis.killMaster();
		await("promotion").atMost(FAILOVER)
			.ignoreExceptions()
			.until(() -> redis.currentMasterPort() == redis.replicaPort());
		await("subscribed again on the promoted master").atMost(FAILOVER)
			.until(() -> RedisSubscribers.of(replica, channel) > 0);
		logger.info("Sentinel failover: the waiter subscribed again on the promoted master " + millisSince(killed)
				+ " ms after the master was killed");
		try {
			held.close();
		}
		catch (DistributeLockException ex) {
			// Retried in the background, as a release that fails is.
			logger.info("The release failed once after the failover: " + ex.getMessage());
		}
		Optional<LockHandle> taken = waiting.get(60, TimeUnit.SECONDS);
		assertThat(taken).as("woken by the release within its wait").isPresent();
		taken.get().close();
	}

	/**
	 * Cuts the replication link and waits until the replica knows, so that nothing
	 * written to the master from now on reaches it.
	 */
	private static void cutReplication(TcpProxy replication, StringRedisTemplate replica) {
		replication.cut();
		await("replication cut").atMost(Duration.ofSeconds(10))
			.until(() -> "down".equals(EmbeddedRedisSentinel.replicationInfo(replica, "master_link_status")));
	}

	private static String lockKey(String key) {
		return RedisLockBackend.DEFAULT_KEY_PREFIX + key;
	}

	private static String fenceKey(String key) {
		return "{" + lockKey(key) + "}:fence";
	}

	private static long millisSince(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
	}

}
