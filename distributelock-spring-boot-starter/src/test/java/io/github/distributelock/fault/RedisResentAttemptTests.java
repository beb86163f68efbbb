package io.github.distributelock.fault;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.HandOverLockBackend.HandOver;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.core.MultiKeyAcquireResult;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.distributelock.core.Backends.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Lettuce sends the commands of a dropped connection again once it is back. An attempt
 * whose script had run before the cut then finds the key held by its own owner: with an
 * owner the engine made, unique to the attempt, that is the attempt's own lock, and it
 * must be told so, or its caller gives up (or waits for itself) and the lock stays in the
 * store for its whole lease. Each test delays the traffic, waits until the script has run
 * on the server, and cuts the connection before its answer is back.
 */
class RedisResentAttemptTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	final ProxiedRedis store = new ProxiedRedis(redis);

	@Test
	void aPlainAttemptSentAgainIsAcquiredWithTheTokenItTook() {
		Claim claim = unique("resent-plain", LockKind.EXCLUSIVE);
		warm(claim.kind());
		AcquireResult result = resent(() -> this.store.proxied.tryAcquire(claim, LEASE), () -> locked("resent-plain"),
				() -> {
				});
		assertThat(result.acquired()).as("the attempt is told it holds the lock it took").isTrue();
		assertThat(result.fencingToken()).isEqualTo(fence("resent-plain"));
		assertThat(join(this.store.direct.release(claim))).isTrue();
		assertThat(locked("resent-plain")).isFalse();
	}

	@Test
	void aPlainAttemptOfAChosenOwnerSentAgainStaysHeld() {
		// Another instance may have chosen the same owner: the key held by it is not
		// known to be this attempt's.
		Claim claim = new Claim("resent-chosen", "chosen-owner");
		warm(claim.kind());
		AcquireResult result = resent(() -> this.store.proxied.tryAcquire(claim, LEASE), () -> locked("resent-chosen"),
				() -> {
				});
		assertThat(result.acquired()).isFalse();
		assertThat(join(this.store.direct.release(claim))).isTrue();
	}

	@Test
	void aFairAttemptSentAgainIsAcquired() {
		Claim claim = unique("resent-fair", LockKind.FAIR);
		warm(claim.kind());
		AcquireResult result = resent(() -> this.store.proxied.tryAcquire(claim, LEASE), () -> locked("resent-fair"),
				() -> {
				});
		assertThat(result.acquired()).as("the fair attempt does not queue behind itself").isTrue();
		assertThat(result.fencingToken()).isEqualTo(fence("resent-fair"));
		assertThat(join(this.store.direct.release(claim))).isTrue();
		assertThat(redis.store().hasKey("{lock:resent-fair}:queue")).isFalse();
	}

	@Test
	void aWriteAttemptSentAgainIsAcquired() {
		Claim claim = unique("resent-write", LockKind.WRITE);
		warm(claim.kind());
		AcquireResult result = resent(() -> this.store.proxied.tryAcquire(claim, LEASE), () -> locked("resent-write"),
				() -> {
				});
		assertThat(result.acquired()).as("the writer does not queue behind itself").isTrue();
		assertThat(result.fencingToken()).isEqualTo(fence("resent-write"));
		assertThat(join(this.store.direct.release(claim))).isTrue();
	}

	@Test
	void aReadAttemptSentAgainWhileAWriterQueuedIsAcquired() {
		Claim reader = unique("resent-read", LockKind.READ);
		Claim writer = unique("resent-read", LockKind.WRITE);
		warm(reader.kind());
		warm(writer.kind());
		AcquireResult result = resent(() -> this.store.proxied.tryAcquire(reader, LEASE), () -> locked("resent-read"),
				() -> assertThat(join(this.store.direct.tryAcquire(writer, LEASE)).acquired()).isFalse());
		assertThat(result.acquired()).as("the reader holds; the writer queued behind it waits for it").isTrue();
		assertThat(result.fencingToken()).isGreaterThan(0);
		assertThat(join(this.store.direct.release(reader))).isTrue();
		assertThat(join(this.store.direct.tryAcquire(writer, LEASE)).acquired()).isTrue();
		assertThat(join(this.store.direct.release(writer))).isTrue();
	}

	@Test
	void aPermitAttemptSentAgainWhenItTookTheLastPermitIsAcquired() {
		Claim first = unique("resent-permits", LockKind.permits(2));
		Claim second = unique("resent-permits", LockKind.permits(2));
		warm(first.kind());
		assertThat(join(this.store.direct.tryAcquire(first, LEASE)).acquired()).isTrue();
		AcquireResult result = resent(() -> this.store.proxied.tryAcquire(second, LEASE),
				() -> redis.store().opsForZSet().score("{lock:resent-permits}:holders", second.owner()) != null, () -> {
				});
		assertThat(result.acquired()).as("the attempt holds the permit it took").isTrue();
		assertThat(join(this.store.direct.release(second))).isTrue();
		assertThat(join(this.store.direct.release(first))).isTrue();
		assertThat(locked("resent-permits")).isFalse();
	}

	@Test
	void aMultiKeyAttemptSentAgainIsAcquiredWithTheTokensItTook() {
		List<Claim> claims = List.of(unique("resent-multi-a", LockKind.EXCLUSIVE),
				unique("resent-multi-b", LockKind.EXCLUSIVE));
		warmMultiKey();
		MultiKeyAcquireResult result = resent(() -> this.store.proxied.tryAcquireAll(claims, List.of(LEASE, LEASE)),
				() -> locked("resent-multi-b"), () -> {
				});
		assertThat(result.acquired()).as("the attempt holds the locks it took: " + result).isTrue();
		assertThat(result.fencingTokens()).containsExactly(fence("resent-multi-a"), fence("resent-multi-b"));
		assertThat(join(this.store.direct.releaseAll(claims))).containsExactly(true, true);
	}

	@Test
	void aHandOverSentAgainGivesTheNextOwnerTheLock() {
		Claim holder = unique("resent-hand-over", LockKind.EXCLUSIVE);
		Claim next = unique("resent-hand-over", LockKind.EXCLUSIVE);
		Claim warmHolder = unique("resent-hand-over-warm", LockKind.EXCLUSIVE);
		Claim warmNext = unique("resent-hand-over-warm", LockKind.EXCLUSIVE);
		join(this.store.direct.tryAcquire(warmHolder, LEASE));
		join(this.store.direct.handOver(warmHolder, warmNext, LEASE));
		join(this.store.direct.release(warmNext));
		assertThat(join(this.store.direct.tryAcquire(holder, LEASE)).acquired()).isTrue();
		HandOver result = resent(() -> this.store.proxied.handOver(holder, next, LEASE),
				() -> next.owner().equals(redis.store().opsForValue().get("lock:resent-hand-over")), () -> {
				});
		assertThat(result.released()).as("the holder's lock counts as released").isTrue();
		assertThat(result.next().acquired()).as("the next owner holds the lock handed to it").isTrue();
		assertThat(result.next().fencingToken()).isEqualTo(fence("resent-hand-over"));
		assertThat(join(this.store.direct.release(next))).isTrue();
	}

	@Test
	void aFairHandOverSentAgainGivesTheNextOwnerTheLock() {
		Claim holder = unique("resent-fair-hand-over", LockKind.FAIR);
		Claim next = unique("resent-fair-hand-over", LockKind.FAIR);
		warm(holder.kind());
		Claim warmHolder = unique("resent-fair-hand-over-warm", LockKind.FAIR);
		Claim warmNext = unique("resent-fair-hand-over-warm", LockKind.FAIR);
		join(this.store.direct.tryAcquire(warmHolder, LEASE));
		join(this.store.direct.handOver(warmHolder, warmNext, LEASE));
		join(this.store.direct.release(warmNext));
		assertThat(join(this.store.direct.tryAcquire(holder, LEASE)).acquired()).isTrue();
		assertThat(join(this.store.direct.tryAcquire(next, LEASE)).acquired()).isFalse();
		HandOver result = resent(() -> this.store.proxied.handOver(holder, next, LEASE),
				() -> ("\0dl:fair\0" + next.owner())
					.equals(redis.store().opsForValue().get("lock:resent-fair-hand-over")),
				() -> {
				});
		assertThat(result.released()).as("the holder's lock counts as released").isTrue();
		assertThat(result.next().acquired()).as("the next owner holds the lock handed to it").isTrue();
		assertThat(result.next().fencingToken()).isEqualTo(fence("resent-fair-hand-over"));
		assertThat(join(this.store.direct.release(next))).isTrue();
	}

	@Test
	void aCallerWhoseAttemptIsSentAgainHoldsTheLock() throws Exception {
		DefaultDistributeLock lock = new DefaultDistributeLock(this.store.proxied);
		try {
			warm(LockKind.EXCLUSIVE);
			Optional<LockHandle> handle = resent(
					() -> lock.tryAcquireAsync(LockRequest.of("resent-engine").withWaitTime(Duration.ofSeconds(10))),
					() -> locked("resent-engine"), () -> {
					});
			assertThat(handle).as("the caller holds the lock its attempt took").isPresent();
			handle.get().close();
			assertThat(locked("resent-engine")).isFalse();
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aCallerWhoseAttemptIsSentAgainAfterItsWaitLeavesNoLockInTheStore() throws Exception {
		DefaultDistributeLock lock = new DefaultDistributeLock(this.store.proxied);
		try {
			warm(LockKind.EXCLUSIVE);
			this.store.proxy.latency(Duration.ofMillis(1500));
			CompletableFuture<Optional<LockHandle>> acquired = lock
				.tryAcquireAsync(LockRequest.of("resent-short-wait").withWaitTime(Duration.ofMillis(200)));
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(5))
				.until(() -> locked("resent-short-wait"));
			this.store.proxy.cut();
			this.store.proxy.latency(Duration.ZERO);
			this.store.proxy.restore();
			Optional<LockHandle> handle = acquired.get(30, TimeUnit.SECONDS);
			handle.ifPresent(LockHandle::close);
			// Well within the lease of 30 s that a lock left in the store would keep.
			await().atMost(Duration.ofSeconds(5)).until(() -> !locked("resent-short-wait"));
		}
		finally {
			lock.close();
		}
	}

	private <T> T resent(Supplier<? extends CompletionStage<T>> call, BooleanSupplier ranOnTheServer,
			Runnable meanwhile) {
		return ResentCalls.resent(this.store.proxy, call, ranOnTheServer, meanwhile);
	}

	/**
	 * Loads the scripts of {@code kind} into the server before the traffic is delayed.
	 */
	private void warm(LockKind kind) {
		Claim claim = unique("resent-warm-" + kind.type(), kind);
		join(this.store.direct.tryAcquire(claim, LEASE));
		join(this.store.direct.release(claim));
	}

	private void warmMultiKey() {
		List<Claim> claims = List.of(unique("resent-warm-a", LockKind.EXCLUSIVE),
				unique("resent-warm-b", LockKind.EXCLUSIVE));
		join(this.store.direct.tryAcquireAll(claims, List.of(LEASE, LEASE)));
		join(this.store.direct.releaseAll(claims));
	}

	private static Claim unique(String key, LockKind kind) {
		return new Claim(key, UUID.randomUUID().toString(), null, kind, true);
	}

	private static boolean locked(String key) {
		return Boolean.TRUE.equals(redis.store().hasKey("lock:" + key));
	}

	private static long fence(String key) {
		return Long.parseLong(redis.store().opsForValue().get("{lock:" + key + "}:fence"));
	}

}
