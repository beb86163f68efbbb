package io.github.distributelock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AbstractLockKindsContractTests;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static io.github.distributelock.core.Backends.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The kinds of lock on a single real redis-server, read from the store itself (the lock
 * word {@code lock:<key>} and the readers or permit holders beside it), plus what is
 * particular to Redis: the keys of each kind, nodes of the original starter, crashed
 * waiters and holders, fencing tokens across kinds.
 */
class RedisLockKindsContractTests extends AbstractLockKindsContractTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private static StringRedisTemplate store;

	private final Closeables closeables = new Closeables();

	@BeforeAll
	static void inspectTheStore() {
		store = redis.store();
	}

	@AfterEach
	void closeBackends() throws Exception {
		this.closeables.close();
	}

	@Override
	protected LockBackend newBackend() {
		return backend(redis.newConnectionFactory(), RedisKindScripts.WAITER_LEASE);
	}

	@Override
	protected boolean isLockedInStore(String key) {
		return isLocked(store, key);
	}

	@Test
	void everyKindKeepsItsStateInTheDocumentedKeys() throws Exception {
		String lockKey = "lock:" + key();
		DefaultDistributeLock lock = newLock();
		try (LockHandle fair = lock.tryAcquire(LockRequest.of(key()).withFair(true).withOwner("owner-1"))
			.orElseThrow()) {
			assertThat(store.opsForValue().get(lockKey)).isEqualTo("\0dl:fair\0owner-1");
			assertThat(store.getExpire(lockKey)).isBetween(1L, 30L);
			LockBackend waiter = track(newBackend());
			assertThat(join(waiter.tryAcquire(claim("waiter-1", LockKind.FAIR), LEASE)).acquired()).isFalse();
			// In arrival order, each with a lease of its own on the server's clock.
			assertThat(store.opsForZSet().score("{" + lockKey + "}:queue", "waiter-1")).isEqualTo(1.0);
			assertThat(store.opsForZSet().score("{" + lockKey + "}:waiters", "waiter-1")).isGreaterThan(serverMillis());
			assertThat(store.getExpire("{" + lockKey + "}:queue")).isBetween(1L, 10L);
			assertThat(join(waiter.release(claim("waiter-1", LockKind.FAIR)))).isFalse();
			assertThat(store.hasKey("{" + lockKey + "}:queue")).isFalse();
			assertThat(store.hasKey("{" + lockKey + "}:waiters")).isFalse();
		}
		try (LockHandle write = lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE).withOwner("owner-2"))
			.orElseThrow()) {
			assertThat(store.opsForValue().get(lockKey)).isEqualTo("\0dl:write\0owner-2");
		}
		String[] releasedReaders = new String[2];
		try (LockHandle read = lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ).withOwner("owner-3"))
			.orElseThrow()) {
			releasedReaders[0] = read.fencingToken() + "\0owner-3";
			// A holder alone keeps its owner in the word, with its lease, as a plain
			// lock.
			assertThat(store.opsForValue().get(lockKey)).isEqualTo("\0dl:read\0owner-3");
			assertThat(store.getExpire(lockKey)).isBetween(1L, 30L);
			assertThat(store.hasKey("{" + lockKey + "}:holders")).isFalse();
			try (LockHandle second = newLock()
				.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ).withOwner("owner-5"))
				.orElseThrow()) {
				releasedReaders[1] = second.fencingToken() + "\0owner-5";
				// From the second holder on, each has a lease of its own beside the word.
				assertThat(store.opsForValue().get(lockKey)).isEqualTo("\0dl:read");
				assertThat(store.opsForZSet().score("{" + lockKey + "}:holders", "owner-3"))
					.isGreaterThan(serverMillis());
				assertThat(store.opsForZSet().score("{" + lockKey + "}:holders", "owner-5"))
					.isGreaterThan(serverMillis());
				assertThat(store.getExpire("{" + lockKey + "}:holders")).isBetween(1L, 30L);
			}
			assertThat(store.opsForZSet().range("{" + lockKey + "}:holders", 0, -1)).containsExactly("owner-3");
		}
		// Each reader's release is remembered by its token and owner, so that a copy of
		// it that Lettuce sends again finds it.
		assertThat(store.opsForList().range("{" + lockKey + "}:releases", 0, -1))
			.containsExactlyInAnyOrder(releasedReaders);
		try (LockHandle permit = lock.tryAcquire(LockRequest.of(key()).withPermits(2).withOwner("owner-4"))
			.orElseThrow()) {
			assertThat(store.opsForValue().get(lockKey)).isEqualTo("\0dl:permits:2\0owner-4");
			try (LockHandle second = newLock().tryAcquire(LockRequest.of(key()).withPermits(2).withOwner("owner-6"))
				.orElseThrow()) {
				assertThat(store.opsForValue().get(lockKey)).isEqualTo("\0dl:permits:2");
				assertThat(store.opsForZSet().range("{" + lockKey + "}:holders", 0, -1))
					.containsExactlyInAnyOrder("owner-4", "owner-6");
			}
		}
		assertThat(store.keys("*" + key() + "*")).containsExactlyInAnyOrder("{" + lockKey + "}:fence",
				"{" + lockKey + "}:releases");
		assertThat(store.getExpire("{" + lockKey + "}:releases")).isBetween(1L,
				RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT.toSeconds());
	}

	@Test
	void fencingTokensGrowAcrossKindsFromTheKeysOneCounter() throws Exception {
		DefaultDistributeLock lock = newLock();
		List<LockRequest> requests = List.of(LockRequest.of(key()), LockRequest.of(key()).withFair(true),
				LockRequest.of(key()).withMode(LockMode.WRITE), LockRequest.of(key()).withMode(LockMode.READ),
				LockRequest.of(key()).withPermits(3), LockRequest.of(key()));
		long last = 0;
		for (LockRequest request : requests) {
			try (LockHandle handle = lock.tryAcquire(request).orElseThrow()) {
				assertThat(handle.fencingToken()).as(request.toString()).isGreaterThan(last);
				last = handle.fencingToken();
			}
		}
		assertThat(Long.parseLong(store.opsForValue().get("{lock:" + key() + "}:fence"))).isEqualTo(last);
	}

	@Test
	void anOldNodesPlainLockAndEveryKindExcludeEachOther() throws Exception {
		String lockKey = "lock:" + key();
		DefaultDistributeLock lock = newLock();
		// The original starter: SET NX PX of a UUID, released by compare-and-delete.
		String old = UUID.randomUUID().toString();
		assertThat(store.opsForValue().setIfAbsent(lockKey, old, Duration.ofSeconds(30))).isTrue();
		assertThat(lock.tryAcquire(LockRequest.of(key()).withFair(true))).isEmpty();
		for (LockRequest other : List.of(LockRequest.of(key()).withMode(LockMode.WRITE),
				LockRequest.of(key()).withMode(LockMode.READ), LockRequest.of(key()).withPermits(2))) {
			assertThatExceptionOfType(LockKindConflictException.class).isThrownBy(() -> lock.tryAcquire(other))
				.withMessageContaining("is held in redis as an exclusive lock and was asked for as a ");
		}
		assertThat(store.opsForValue().get(lockKey)).isEqualTo(old);
		assertThat(oldNodeRelease(lockKey, old)).isTrue();
		for (LockRequest kind : List.of(LockRequest.of(key()).withFair(true),
				LockRequest.of(key()).withMode(LockMode.WRITE), LockRequest.of(key()).withMode(LockMode.READ),
				LockRequest.of(key()).withPermits(2))) {
			try (LockHandle held = lock.tryAcquire(kind).orElseThrow()) {
				assertThat(store.opsForValue().setIfAbsent(lockKey, old, Duration.ofSeconds(30))).as(kind.toString())
					.isFalse();
				assertThat(oldNodeRelease(lockKey, old)).isFalse();
				assertThat(held.isHeld()).isTrue();
			}
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void aFairWaiterBehindAnOldNodeGetsTheLockWhenTheOldNodeLetsGo() throws Exception {
		String lockKey = "lock:" + key();
		String old = UUID.randomUUID().toString();
		assertThat(store.opsForValue().setIfAbsent(lockKey, old, Duration.ofSeconds(30))).isTrue();
		CompletableFuture<Optional<LockHandle>> waiting = newLock()
			.tryAcquireAsync(LockRequest.of(key()).withFair(true).withWaitTime(Duration.ofSeconds(20)));
		await().atMost(Duration.ofSeconds(10)).until(() -> store.hasKey("{" + lockKey + "}:queue"));
		// Old nodes do not publish their release: the waiter's next attempt finds the key
		// free.
		assertThat(oldNodeRelease(lockKey, old)).isTrue();
		try (LockHandle taken = waiting.get(20, TimeUnit.SECONDS).orElseThrow()) {
			assertThat(store.opsForValue().get(lockKey)).startsWith("\0dl:fair\0");
		}
	}

	@Test
	void aCrashedFairWaiterHoldsUpTheQueueOnlyUntilItsLeaseRunsOut() throws Exception {
		Duration crashedLease = Duration.ofSeconds(2);
		LockHandle held = newLock().tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		// A waiter of another JVM queues first, then crashes: it never attempts again nor
		// leaves.
		LockBackend crashed = track(backend(redis.newConnectionFactory(), crashedLease));
		// Read before the attempt, whose lease the server starts some time before its
		// answer arrives here: measured from after it, the wait looked short of the
		// lease.
		long queuedAt = System.nanoTime();
		assertThat(join(crashed.tryAcquire(claim("crashed", LockKind.FAIR), LEASE)).acquired()).isFalse();
		CompletableFuture<Optional<LockHandle>> next = newLock()
			.tryAcquireAsync(LockRequest.of(key()).withFair(true).withWaitTime(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> store.opsForZSet().zCard("{lock:" + key() + "}:queue") == 2);
		held.close();
		try (LockHandle taken = next.get(30, TimeUnit.SECONDS).orElseThrow()) {
			// In arrival order: the crashed waiter kept its place until its lease ran
			// out, and no longer: the waiter behind it attempted again then, not at its
			// next periodic attempt, up to 3 s later.
			assertThat(Duration.ofNanos(System.nanoTime() - queuedAt)).isGreaterThanOrEqualTo(crashedLease)
				.isLessThan(crashedLease.plusMillis(800));
			assertThat(store.hasKey("{lock:" + key() + "}:queue")).isFalse();
			assertThat(store.hasKey("{lock:" + key() + "}:waiters")).isFalse();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * The queue and the waiter leases expire within a millisecond of each other (they are
	 * set by one script, but each {@code PEXPIRE} reads the clock, and earlier versions
	 * set them in separate steps): an arrival in between left the queue's dead entries
	 * without a lease, which no pruning ever removed, ahead of every later waiter for as
	 * long as arrivals kept the queue alive.
	 */
	@Test
	void aQueueEntryWithoutAWaiterLeaseIsALeftoverThatHoldsUpNobody() throws Exception {
		String queue = "{lock:" + key() + "}:queue";
		store.opsForZSet().add(queue, "left-over-1", 1);
		store.opsForZSet().add(queue, "left-over-2", 2);
		store.expire(queue, Duration.ofSeconds(30));
		try (LockHandle taken = newLock().tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow()) {
			assertThat(store.hasKey(queue)).isFalse();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * The same leftovers, with no waiter lease left at all (their writer gave up and left
	 * the queue, which removed the last lease): only a writer's attempt removed them, so
	 * readers stayed out until the queue expired, up to the waiter lease after the last
	 * arrival.
	 */
	@Test
	void queueEntriesWithoutAWaiterLeaseKeepNoReaderOut() throws Exception {
		String queue = "{lock:" + key() + "}:queue";
		store.opsForZSet().add(queue, "left-over-1", 1);
		store.opsForZSet().add(queue, "left-over-2", 2);
		store.expire(queue, Duration.ofSeconds(30));
		try (LockHandle reading = newLock()
			.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ).withWaitTime(Duration.ofSeconds(2)))
			.orElseThrow()) {
			assertThat(store.hasKey(queue)).isFalse();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void aFairWaiterOfThisJvmAtTheHeadOfTheQueueTakesTheLockAtOnceWhenItsHolderHadLostIt() throws Exception {
		DefaultDistributeLock lock = newLock();
		String lockKey = "lock:" + key();
		String waiters = "{" + lockKey + "}:waiters";
		LockHandle held = lock.tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		CompletableFuture<Optional<LockHandle>> next = lock
			.tryAcquireAsync(LockRequest.of(key()).withFair(true).withWaitTime(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> store.opsForZSet().zCard(waiters) == 1);
		Double attempted = store.opsForZSet().rangeWithScores(waiters, 0, 0).iterator().next().getScore();
		// Just after one of the attempts the waiter repeats every few seconds, so that
		// only the release can let it in at once.
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !attempted
				.equals(store.opsForZSet().rangeWithScores(waiters, 0, 0).iterator().next().getScore()));
		// The holder lost the lock without anyone publishing (its lease ran out during a
		// pause, or a failover promoted a replica that lacked it), then lets go.
		store.delete(lockKey);
		long released = System.nanoTime();
		held.close();
		try (LockHandle taken = next.get(30, TimeUnit.SECONDS).orElseThrow()) {
			assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofSeconds(1));
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void aCrashedWriterAtTheHeadOfTheQueueKeepsReadersOutOnlyUntilItsLeaseRunsOut() throws Exception {
		Duration crashedLease = Duration.ofSeconds(2);
		LockHandle reading = newLock().tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow();
		// A writer of another JVM queues behind the reader, then crashes: it never
		// attempts again nor leaves.
		LockBackend crashed = track(backend(redis.newConnectionFactory(), crashedLease));
		// Read before the attempt, whose lease the server starts some time before its
		// answer arrives here: measured from after it, the wait looked short of the
		// lease.
		long queuedAt = System.nanoTime();
		assertThat(join(crashed.tryAcquire(claim("crashed", LockKind.WRITE), LEASE)).acquired()).isFalse();
		reading.close();
		try (LockHandle taken = newLock()
			.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ).withWaitTime(Duration.ofSeconds(30)))
			.orElseThrow()) {
			// Not at the reader's next periodic attempt, up to 3 s later.
			assertThat(Duration.ofNanos(System.nanoTime() - queuedAt)).isGreaterThanOrEqualTo(crashedLease)
				.isLessThan(crashedLease.plusMillis(800));
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * As above, while another reader holds the key: nothing is published when the crashed
	 * writer's lease runs out, and the holder's lease (renewed by its watchdog) is no
	 * time to attempt again, so the reader must be told when the queue entry ends. Its
	 * wait time is shorter than the 3 s between its periodic attempts: told only the
	 * holder's lease, it attempted once and then at its deadline, and did not get in.
	 */
	@Test
	void aCrashedWriterInTheQueueKeepsReadersOutWhileTheKeyIsReadOnlyUntilItsLeaseRunsOut() throws Exception {
		Duration crashedLease = Duration.ofSeconds(1);
		try (LockHandle reading = newLock().tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow()) {
			// A writer of another JVM queues behind the reader, then crashes.
			LockBackend crashed = track(backend(redis.newConnectionFactory(), crashedLease));
			assertThat(join(crashed.tryAcquire(claim("crashed", LockKind.WRITE), LEASE)).acquired()).isFalse();
			Optional<LockHandle> second = newLock()
				.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ).withWaitTime(crashedLease.plusMillis(1500)));
			assertThat(second).isPresent();
			try (LockHandle secondReader = second.get()) {
				assertThat(reading.isHeld() && secondReader.isHeld()).isTrue();
				assertThat(store.hasKey("{lock:" + key() + "}:queue")).isFalse();
			}
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void aCrashedPermitHolderOrReaderGivesItsPlaceBackWhenItsLeaseRunsOut() throws Exception {
		LockBackend crashed = track(newBackend());
		DefaultDistributeLock lock = newLock();
		for (LockKind kind : List.of(LockKind.permits(1), LockKind.READ)) {
			assertThat(
					join(crashed.tryAcquire(claim("crashed-" + kind.tag(), kind), Duration.ofMillis(500))).acquired())
				.isTrue();
			LockRequest blocked = (kind == LockKind.READ) ? LockRequest.of(key()).withMode(LockMode.WRITE)
					: LockRequest.of(key()).withPermits(1);
			try (LockHandle taken = lock.tryAcquire(blocked.withWaitTime(Duration.ofSeconds(20))).orElseThrow()) {
				assertThat(store.opsForZSet().score("{lock:" + key() + "}:holders", "crashed-" + kind.tag())).isNull();
			}
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Spring Integration's {@code testUnlockDoesNotDeleteOtherClientsLock} with the value
	 * of a kind's marker: a release by value compares the lock word with the value, so a
	 * value equal to the readers' or permits' marker must not delete the word the shared
	 * holders keep, which would let a plain lock in beside them.
	 */
	@Test
	void aReleaseByAValueThatIsAMarkerLeavesTheSharedHoldersTheirLockWord() throws Exception {
		String permits = key() + ".permits";
		try (LockHandle reading = newLock().tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow();
				LockHandle permitted = newLock().tryAcquire(LockRequest.of(permits).withPermits(2)).orElseThrow()) {
			DefaultDistributeLock other = newLock();
			assertReleaseRefused(other, key(), "\0dl:read");
			assertReleaseRefused(other, permits, "\0dl:permits:2");
			assertThat(reading.isHeld() && permitted.isHeld()).isTrue();
			// Still held as their kinds: a plain lock is refused as a conflict.
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(() -> other.tryAcquire(key(), Duration.ZERO, null));
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(() -> other.tryAcquire(permits, Duration.ZERO, null));
		}
		assertThat(isLockedInStore(key()) || isLockedInStore(permits)).isFalse();
	}

	private static void assertReleaseRefused(DefaultDistributeLock lock, String key, String value) {
		try {
			assertThat(lock.releaseLock(key, value)).as(key).isFalse();
		}
		catch (DistributeLockException ex) {
			assertThat(ex).hasMessageContaining("must not start with a zero character");
		}
	}

	@Test
	void ownersThatStartWithAZeroCharacterAreRefused() {
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(() -> newLock().tryAcquire(LockRequest.of(key()).withOwner("\0dl:read")))
			.withMessageContaining("must not start with a zero character");
		assertThat(isLockedInStore(key())).isFalse();
	}

	private LockBackend.Claim claim(String owner, LockKind kind) {
		return new LockBackend.Claim(key(), owner, null, kind);
	}

	private <B extends LockBackend> B track(B backend) {
		this.closeables.add((AutoCloseable) backend);
		return backend;
	}

	/** The original starter's release: compare-and-delete. */
	private static boolean oldNodeRelease(String lockKey, String owner) {
		Long deleted = store.execute(RedisScript.of(
				"if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
				Long.class), List.of(lockKey), owner);
		return deleted != null && deleted == 1;
	}

	private static double serverMillis() {
		return store.execute((RedisCallback<Long>) (connection) -> connection.serverCommands().time());
	}

	/**
	 * A backend on a connection factory of its own, which it closes with itself, as the
	 * backend of another JVM would have.
	 */
	static RedisLockBackend backend(LettuceConnectionFactory factory, Duration waiterLease) {
		return new RedisLockBackend(factory, RedisLockBackend.DEFAULT_KEY_PREFIX,
				RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT, 0, RedisLockBackend.DEFAULT_REPLICA_ACK_TIMEOUT,
				waiterLease) {

			@Override
			public void close() throws Exception {
				try {
					super.close();
				}
				finally {
					factory.destroy();
				}
			}

		};
	}

	/** Whether the lock word, or a reader or permit holder, is in the store. */
	static boolean isLocked(StringRedisTemplate store, String key) {
		Long holders = store.opsForZSet().zCard("{lock:" + key + "}:holders");
		return Boolean.TRUE.equals(store.hasKey("lock:" + key)) || (holders != null && holders > 0);
	}

}
