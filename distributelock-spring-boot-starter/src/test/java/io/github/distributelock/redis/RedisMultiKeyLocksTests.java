package io.github.distributelock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.TestKey;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The keys of a multi-key request on a single real redis-server: taken by one script and
 * released by one, in the wire format of the single-key lock, read from the store itself.
 * The behaviour every store shares is in the kinds contract
 * ({@link RedisLockKindsContractTests}).
 */
class RedisMultiKeyLocksTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@RegisterExtension
	final TestKey key = new TestKey();

	@Test
	void theKeysAreTakenByOneScriptAndReleasedByOneInTheSingleKeyWireFormat() throws Exception {
		CountingLockBackend backend = countingBackend();
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend));
		String a = this.key.name() + ".a";
		String b = this.key.name() + ".b";
		StringRedisTemplate store = redis.store();
		try (LockHandle both = lock
			.tryAcquire(LockRequest.all(LockRequest.of(b), LockRequest.of(a).withLeaseTime(Duration.ofSeconds(5)))
				.withOwner("owner-1"))
			.orElseThrow()) {
			assertThat(backend.acquireAllAttempts).hasValue(1);
			assertThat(backend.acquireAttempts).hasValue(0);
			assertThat(store.opsForValue().get("lock:" + a)).isEqualTo("owner-1");
			assertThat(store.opsForValue().get("lock:" + b)).isEqualTo("owner-1");
			// Each key with its own lease: a fixed one, and the watchdog's.
			assertThat(store.getExpire("lock:" + a, TimeUnit.MILLISECONDS)).isBetween(1L, 5_000L);
			assertThat(store.getExpire("lock:" + b, TimeUnit.MILLISECONDS)).isBetween(5_001L, 30_000L);
			// Each key's token is its own counter's, the one single acquisitions draw.
			assertThat(both.fencingToken()).isEqualTo(Math.max(fence(a), fence(b)));
			assertThat(lock.heldLocks()).extracting((held) -> held.key() + "=" + held.fencingToken())
				.containsExactlyInAnyOrder(a + "=" + fence(a), b + "=" + fence(b));
		}
		assertThat(backend.releaseAllCalls).hasValue(1);
		assertThat(backend.releases).hasValue(0);
		assertThat(store.hasKey("lock:" + a)).isFalse();
		assertThat(store.hasKey("lock:" + b)).isFalse();
	}

	@Test
	void aHeldKeyLeavesTheOtherKeysAndTheirFencingCountersUntouched() throws Exception {
		DefaultDistributeLock lock = newLock();
		String a = this.key.name() + ".a";
		String b = this.key.name() + ".b";
		lock.tryAcquire(a, Duration.ZERO, null).orElseThrow().close();
		long fenceOfA = fence(a);
		try (LockHandle heldB = newLock().tryAcquire(b, Duration.ZERO, null).orElseThrow()) {
			assertThat(lock.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b)))).isEmpty();
			assertThat(redis.store().hasKey("lock:" + a)).isFalse();
			assertThat(fence(a)).isEqualTo(fenceOfA);
		}
	}

	@Test
	void aKeyOfANodeOfTheOriginalStarterIsWaitedForUntilItsLeaseEnds() throws Exception {
		String a = this.key.name() + ".a";
		String b = this.key.name() + ".b";
		// The original starter: SET NX PX, and no message at release.
		redis.store().opsForValue().setIfAbsent("lock:" + b, "old-node", Duration.ofMillis(500));
		long start = System.nanoTime();
		CompletableFuture<Optional<LockHandle>> both = newLock().tryAcquireAsync(
				LockRequest.all(LockRequest.of(a), LockRequest.of(b)).withWaitTime(Duration.ofSeconds(20)));
		try (LockHandle taken = both.get(10, TimeUnit.SECONDS).orElseThrow()) {
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(400L, 5_000L);
			assertThat(redis.store().opsForValue().get("lock:" + b)).isNotEqualTo("old-node");
		}
		assertThat(redis.store().hasKey("lock:" + a) || redis.store().hasKey("lock:" + b)).isFalse();
	}

	@Test
	void ownersThatStartWithAZeroCharacterAreRefusedForEveryKey() {
		assertThatExceptionOfType(DistributeLockException.class).isThrownBy(() -> newLock()
			.tryAcquire(LockRequest.all(LockRequest.of(this.key.name() + ".a"), LockRequest.of(this.key.name() + ".b"))
				.withOwner("\0x")))
			.withMessageContaining("must not start with a zero character");
		assertThat(redis.store().hasKey("lock:" + this.key.name() + ".a")).isFalse();
	}

	/**
	 * A multi-key claim with the owner value of a lock whose release is still retried
	 * (applied by Redis, its answer lost) is refused: taken in one script, its key would
	 * be deleted by that retry while its handle said held.
	 */
	@Test
	void aMultiKeyClaimWithTheOwnerValueOfAReleaseStillRetriedIsRefused() throws Exception {
		String a = this.key.name() + ".a";
		String b = this.key.name() + ".b";
		AnswersLost backend = new AnswersLost(newBackend());
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend));
		assertThat(lock.tryLock(a, "value-1", 0, -1)).isTrue();
		backend.loseAnswers = true;
		try {
			assertThatExceptionOfType(DistributeLockException.class).isThrownBy(() -> lock.releaseLock(a, "value-1"));
			assertThat(redis.store().hasKey("lock:" + a)).isFalse();
			LockRequest both = LockRequest.all(LockRequest.of(a), LockRequest.of(b)).withOwner("value-1");
			Optional<LockHandle> taken = Optional.empty();
			try {
				taken = lock.tryAcquire(both);
			}
			catch (IllegalArgumentException ex) {
				assertThat(ex).hasMessageContaining("is still to be sent");
			}
			taken.ifPresent(LockHandle::close);
			assertThat(taken).as("taken although the retried release would delete its key").isEmpty();
			assertThat(redis.store().hasKey("lock:" + a) || redis.store().hasKey("lock:" + b)).isFalse();
		}
		finally {
			backend.loseAnswers = false;
		}
	}

	private long fence(String key) {
		return Long.parseLong(redis.store().opsForValue().get("{lock:" + key + "}:fence"));
	}

	private DefaultDistributeLock newLock() {
		return this.closeables.add(new DefaultDistributeLock(newBackend()));
	}

	private CountingLockBackend countingBackend() {
		return CountingLockBackend.of(newBackend());
	}

	/** Applies releases, then fails them as if their answers had been lost, while set. */
	private static final class AnswersLost extends CountingLockBackend {

		volatile boolean loseAnswers;

		AnswersLost(LockBackend delegate) {
			super(delegate);
		}

		@Override
		public CompletionStage<Boolean> release(Claim claim) {
			CompletionStage<Boolean> released = super.release(claim);
			return (!this.loseAnswers) ? released : released.thenCompose((applied) -> CompletableFuture
				.failedFuture(new UncheckedIOException(new IOException("connection reset after the release"))));
		}

	}

	private LockBackend newBackend() {
		return this.closeables
			.add(RedisLockKindsContractTests.backend(redis.newConnectionFactory(), RedisKindScripts.WAITER_LEASE));
	}

}
