package io.github.distributelock.fault;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.Test;

import static io.github.distributelock.core.Backends.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A reader's or a permit holder's release that Lettuce sends again after a dropped
 * connection, once its first run had released the hold, while other holders of the key
 * took tokens of it (before the release or between the two runs): it is not reported
 * lost. A hold the store lost before its release (deleted, or its lease ran out) still
 * is, although its release was sent again.
 */
class RedisResentSharedReleaseTests extends AbstractRedisResentCallTests {

	@Test
	void aReadReleaseSentAgainAfterAnotherReaderTookTheKeyIsNotReportedLost() throws Exception {
		releasedThenTakenByAnother("resent-read-then-taken", LockKind.READ,
				(request) -> request.withMode(LockMode.READ));
	}

	@Test
	void aPermitReleaseSentAgainAfterAnotherHolderTookTheKeyIsNotReportedLost() throws Exception {
		releasedThenTakenByAnother("resent-permit-then-taken", LockKind.permits(2),
				(request) -> request.withPermits(2));
	}

	@Test
	void aReadReleaseSentAgainAfterAnotherReaderJoinedTheHoldIsNotReportedLost() throws Exception {
		String key = "resent-read-joined";
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		try {
			warm(lock, LockRequest.of(key + "-warm").withMode(LockMode.READ));
			LockHandle handle = lock.tryAcquire(LockRequest.of(key).withMode(LockMode.READ)).orElseThrow();
			AtomicBoolean toldLost = onLost(handle);
			// A reader after this one: the key's counter moves on while this one holds.
			Claim other = unique(key, LockKind.READ);
			assertThat(join(this.store.direct.tryAcquire(other, LEASE)).acquired()).isTrue();
			String holders = "{lock:" + key + "}:holders";
			ResentCalls.resent(this.store.proxy, handle::releaseAsync,
					() -> redis.store().opsForZSet().size(holders) == 1, () -> {
					});
			assertThat(this.lossReports).as("reported lost").isEmpty();
			assertThat(toldLost).isFalse();
			assertThat(join(this.store.direct.release(other))).isTrue();
			assertThat(locked(key)).isFalse();
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aReaderDeletedFromTheStoreIsReportedLostWhenItsReleaseIsSentAgainAfterAnotherReaderCame() throws Exception {
		String key = "deleted-resent-read";
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		try {
			warm(lock, LockRequest.of(key + "-warm").withMode(LockMode.READ));
			LockHandle handle = lock.tryAcquire(LockRequest.of(key).withMode(LockMode.READ)).orElseThrow();
			AtomicBoolean toldLost = onLost(handle);
			redis.store().delete("lock:" + key);
			Claim other = unique(key, LockKind.READ);
			assertThatThrownBy(() -> ResentCalls.resent(this.store.proxy, handle::releaseAsync, () -> true,
					() -> assertThat(join(this.store.direct.tryAcquire(other, LEASE)).acquired()).isTrue()))
				.isInstanceOf(LockLostException.class);
			assertThat(this.lossReports).hasSize(1);
			await().atMost(Duration.ofSeconds(10)).untilTrue(toldLost);
			assertThat(join(this.store.direct.release(other))).isTrue();
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aPermitWhoseLeaseRanOutIsNotReleasedWhenItsReleaseIsSentAgain() {
		String key = "ran-out-resent-permit";
		Claim warm = unique(key + "-warm", LockKind.permits(2));
		join(this.store.proxied.tryAcquire(warm, LEASE));
		join(this.store.proxied.release(warm));
		// Asked of the backend itself: the engine's own lease timer would tell this
		// holder of the loss before its release.
		Claim claim = unique(key, LockKind.permits(2));
		Claim holding = claim
			.holding(join(this.store.proxied.tryAcquire(claim, Duration.ofMillis(300))).fencingToken());
		await().atMost(Duration.ofSeconds(10)).until(() -> !locked(key));
		// Nobody took the key since, and a connection drops while the release is on its
		// way: the hold ended by its lease all the same.
		boolean released = ResentCalls.resent(this.store.proxy, () -> this.store.proxied.release(holding), () -> true,
				() -> {
				});
		assertThat(released).isFalse();
	}

	/**
	 * Releases a hold of {@code kind} whose release runs on the server and is sent again
	 * after a cut, once another holder took the key: the caller is told it released.
	 */
	private void releasedThenTakenByAnother(String key, LockKind kind, UnaryOperator<LockRequest> asKind)
			throws Exception {
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		try {
			warm(lock, asKind.apply(LockRequest.of(key + "-warm")));
			LockHandle handle = lock.tryAcquire(asKind.apply(LockRequest.of(key))).orElseThrow();
			AtomicBoolean toldLost = onLost(handle);
			Claim other = unique(key, kind);
			ResentCalls.resent(this.store.proxy, handle::releaseAsync, () -> !locked(key),
					() -> assertThat(join(this.store.direct.tryAcquire(other, LEASE)).acquired()).isTrue());
			assertThat(this.lossReports).as("reported lost").isEmpty();
			assertThat(toldLost).isFalse();
			assertThat(join(this.store.direct.release(other))).isTrue();
			assertThat(locked(key)).isFalse();
		}
		finally {
			lock.close();
		}
	}

	private static Claim unique(String key, LockKind kind) {
		return new Claim(key, UUID.randomUUID().toString(), null, kind, true);
	}

	private static boolean locked(String key) {
		return Boolean.TRUE.equals(redis.store().hasKey("lock:" + key));
	}

}
