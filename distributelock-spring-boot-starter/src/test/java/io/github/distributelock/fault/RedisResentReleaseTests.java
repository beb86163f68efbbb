package io.github.distributelock.fault;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.HandOverLockBackend.HandOver;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.LockKind;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.RedisCallback;

import static io.github.distributelock.core.Backends.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Lettuce sends the commands of a dropped connection again once it is back. A release
 * whose script had run before the cut then finds the lock gone, by its own first run: it
 * must not be reported lost (a WARN, the lost meter, {@code onLost}, and
 * {@link LockLostException} with {@code throw-on-lost}). A lock that was lost indeed
 * still is, with or without a dropped connection.
 */
class RedisResentReleaseTests extends AbstractRedisResentCallTests {

	@Test
	void aReleaseSentAgainIsNotReportedLost() throws Exception {
		releaseSentAgain(LockRequest.of("resent-release"), LockRequest.of("resent-release-warm"));
	}

	@Test
	void aFairReleaseSentAgainIsNotReportedLost() throws Exception {
		releaseSentAgain(LockRequest.of("resent-fair-release").withFair(true),
				LockRequest.of("resent-fair-release-warm").withFair(true));
	}

	@Test
	void aWriteReleaseSentAgainIsNotReportedLost() throws Exception {
		releaseSentAgain(LockRequest.of("resent-write-release").withMode(LockMode.WRITE),
				LockRequest.of("resent-write-release-warm").withMode(LockMode.WRITE));
	}

	@Test
	void aMultiKeyReleaseSentAgainIsNotReportedLost() throws Exception {
		releaseSentAgain(twoKeys("resent-multi-release"), twoKeys("resent-multi-release-warm"));
	}

	@Test
	void aMultiKeyLockDeletedFromTheStoreIsReportedLostWhenItsReleaseIsSentAgain() throws Exception {
		String key = "deleted-resent-multi-release";
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		try {
			warm(lock, twoKeys(key + "-warm"));
			LockHandle handle = lock.tryAcquire(twoKeys(key)).orElseThrow();
			redis.store().delete("lock:" + key + ".b");
			Claim other = new Claim(key + ".b", UUID.randomUUID().toString());
			assertThat(join(this.store.direct.tryAcquire(other, LEASE)).acquired()).isTrue();
			// A connection drops while the release is on its way: that alone does not
			// make a lock another owner holds this one's.
			assertThatThrownBy(
					() -> ResentCalls.resent(this.store.proxy, handle::releaseAsync, () -> !locked(key + ".a"), () -> {
					}))
				.isInstanceOf(LockLostException.class);
			assertThat(this.lossReports).hasSize(1);
			assertThat(join(this.store.direct.release(other))).isTrue();
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aLeaseThatRanOutIsReportedLostAtAReleaseDuringWhichTheApplicationClosedAConnection() throws Exception {
		String key = "ran-out-connection-closed";
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		RedisConnection transaction = this.store.proxiedFactory.getConnection();
		try {
			warm(lock, LockRequest.of(key + "-warm"));
			// A transaction opens a connection of its own, which the application closes
			// once done: it is not sent again, nor any command on it.
			transaction.multi();
			transaction.discard();
			LockHandle handle = lock.tryAcquire(LockRequest.of(key)).orElseThrow();
			redis.store().delete("lock:" + key);
			this.store.proxy.latency(Duration.ofMillis(1500));
			CompletableFuture<Void> release = handle.releaseAsync().toCompletableFuture();
			transaction.close();
			assertThatThrownBy(() -> join(release)).isInstanceOf(LockLostException.class);
			assertThat(this.lossReports).hasSize(1);
		}
		finally {
			this.store.proxy.latency(Duration.ZERO);
			lock.close();
		}
	}

	@Test
	void aReadReleaseSentAgainIsNotReportedLost() throws Exception {
		releaseSentAgain(LockRequest.of("resent-read-release").withMode(LockMode.READ),
				LockRequest.of("resent-read-release-warm").withMode(LockMode.READ));
	}

	@Test
	void aPermitReleaseSentAgainIsNotReportedLost() throws Exception {
		releaseSentAgain(LockRequest.of("resent-permit-release").withPermits(2),
				LockRequest.of("resent-permit-release-warm").withPermits(2));
	}

	@Test
	void aReadReleaseSentAgainBesideAnotherReaderIsNotReportedLost() throws Exception {
		String key = "resent-read-release-shared";
		String holders = "{lock:" + key + "}:holders";
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		try {
			warm(lock, LockRequest.of(key + "-warm").withMode(LockMode.READ));
			Claim first = new Claim(key, UUID.randomUUID().toString(), null, LockKind.READ, true);
			assertThat(join(this.store.direct.tryAcquire(first, LEASE)).acquired()).isTrue();
			LockHandle second = lock.tryAcquire(LockRequest.of(key).withMode(LockMode.READ)).orElseThrow();
			assertThat(redis.store().opsForZSet().size(holders)).isEqualTo(2);
			AtomicBoolean toldLost = onLost(second);
			ResentCalls.resent(this.store.proxy, second::releaseAsync,
					() -> redis.store().opsForZSet().size(holders) == 1, () -> {
					});
			assertThat(this.lossReports).as("reported lost").isEmpty();
			assertThat(toldLost).isFalse();
			assertThat(join(this.store.direct.release(first))).isTrue();
			assertThat(locked(key)).isFalse();
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aReaderWhoseLeaseRanOutIsReportedLostAtRelease() throws Exception {
		DefaultDistributeLock lock = throwingOnLost(this.store.direct);
		try {
			LockHandle handle = lock
				.tryAcquire(LockRequest.of("read-ran-out-before-release")
					.withMode(LockMode.READ)
					.withLeaseTime(Duration.ofMillis(200)))
				.orElseThrow();
			await().atMost(Duration.ofSeconds(10)).until(() -> !locked("read-ran-out-before-release"));
			assertThatThrownBy(() -> join(handle.releaseAsync())).isInstanceOf(LockLostException.class);
			assertThat(this.lossReports).hasSize(1);
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aHandOverSentAgainIsNotReportedLost() throws Exception {
		String key = "resent-engine-hand-over";
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		try {
			warm(lock, LockRequest.of(key + "-warm"));
			LockHandle holder = lock.tryAcquire(LockRequest.of(key)).orElseThrow();
			long holderToken = holder.fencingToken();
			CompletableFuture<Optional<LockHandle>> next = lock
				.tryAcquireAsync(LockRequest.of(key).withWaitTime(Duration.ofSeconds(30)));
			ResentCalls.resent(this.store.proxy, holder::releaseAsync, () -> fence(key) > holderToken, () -> {
			});
			LockHandle nextHandle = next.get(30, TimeUnit.SECONDS).orElseThrow();
			assertThat(nextHandle.fencingToken()).isEqualTo(fence(key));
			nextHandle.close();
			assertThat(this.lossReports).isEmpty();
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aFairHandOverSentAgainAfterItReleasedToTheHeadOfTheQueueCountsAsReleased() throws Exception {
		String key = "resent-fair-hand-over-to-head";
		Claim warmHolder = unique(key + "-warm");
		Claim warmNext = unique(key + "-warm");
		join(this.store.direct.tryAcquire(warmHolder, LEASE));
		join(this.store.direct.handOver(warmHolder, warmNext, LEASE));
		join(this.store.direct.release(warmNext));
		Claim holder = unique(key);
		Claim head = unique(key);
		Claim next = unique(key);
		Claim holding = holder.holding(join(this.store.direct.tryAcquire(holder, LEASE)).fencingToken());
		assertThat(join(this.store.direct.tryAcquire(head, LEASE)).acquired()).isFalse();
		assertThat(join(this.store.direct.tryAcquire(next, LEASE)).acquired()).isFalse();
		HandOver result = ResentCalls.resent(this.store.proxy, () -> this.store.proxied.handOver(holding, next, LEASE),
				() -> !locked(key), () -> {
				});
		assertThat(result.released()).as("the holder's lock counts as released").isTrue();
		assertThat(result.next().acquired()).as("the next claim keeps its place behind the head").isFalse();
		assertThat(join(this.store.direct.tryAcquire(head, LEASE)).acquired()).isTrue();
		assertThat(join(this.store.direct.release(head))).isTrue();
		assertThat(join(this.store.direct.release(next))).isFalse();
	}

	@Test
	void aLockDeletedFromTheStoreIsReportedLostAtRelease() throws Exception {
		DefaultDistributeLock lock = throwingOnLost(this.store.direct);
		try {
			LockHandle handle = lock.tryAcquire(LockRequest.of("deleted-before-release")).orElseThrow();
			AtomicBoolean toldLost = onLost(handle);
			redis.store().delete("lock:deleted-before-release");
			assertThatThrownBy(() -> join(handle.releaseAsync())).isInstanceOf(LockLostException.class);
			assertThat(this.lossReports).hasSize(1);
			await().atMost(Duration.ofSeconds(10)).untilTrue(toldLost);
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aLockTakenByAnotherOwnerIsReportedLostAtRelease() throws Exception {
		DefaultDistributeLock lock = throwingOnLost(this.store.direct);
		try {
			LockHandle handle = lock.tryAcquire(LockRequest.of("taken-before-release").withFair(true)).orElseThrow();
			AtomicBoolean toldLost = onLost(handle);
			redis.store().delete("lock:taken-before-release");
			Claim other = new Claim("taken-before-release", UUID.randomUUID().toString(), null, LockKind.FAIR, true);
			assertThat(join(this.store.direct.tryAcquire(other, LEASE)).acquired()).isTrue();
			assertThatThrownBy(() -> join(handle.releaseAsync())).isInstanceOf(LockLostException.class);
			assertThat(this.lossReports).hasSize(1);
			await().atMost(Duration.ofSeconds(10)).untilTrue(toldLost);
			assertThat(join(this.store.direct.release(other))).isTrue();
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aLeaseThatRanOutIsReportedLostAtRelease() throws Exception {
		DefaultDistributeLock lock = throwingOnLost(this.store.direct);
		try {
			LockHandle handle = lock
				.tryAcquire(LockRequest.of("ran-out-before-release").withLeaseTime(Duration.ofMillis(200)))
				.orElseThrow();
			await().atMost(Duration.ofSeconds(10)).until(() -> !locked("ran-out-before-release"));
			assertThatThrownBy(() -> join(handle.releaseAsync())).isInstanceOf(LockLostException.class);
			assertThat(this.lossReports).hasSize(1);
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aLockTakenByAnotherOwnerIsReportedLostWhenItsReleaseIsSentAgain() throws Exception {
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		try {
			warm(lock, LockRequest.of("taken-resent-warm"));
			LockHandle handle = lock.tryAcquire(LockRequest.of("taken-resent")).orElseThrow();
			redis.store().delete("lock:taken-resent");
			Claim other = new Claim("taken-resent", UUID.randomUUID().toString());
			assertThat(join(this.store.direct.tryAcquire(other, LEASE)).acquired()).isTrue();
			// A connection drops while the release is on its way: that alone does not
			// make
			// a lock another owner holds this one's.
			assertThatThrownBy(() -> ResentCalls.resent(this.store.proxy, handle::releaseAsync, () -> true, () -> {
			})).isInstanceOf(LockLostException.class);
			assertThat(this.lossReports).hasSize(1);
			assertThat(join(this.store.direct.release(other))).isTrue();
		}
		finally {
			lock.close();
		}
	}

	@Test
	void aLeaseThatRanOutIsReportedLostAtAReleaseDuringWhichOnlyThePubSubConnectionDropped() throws Exception {
		String key = "ran-out-pub-sub-dropped";
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		try {
			warm(lock, LockRequest.of(key + "-warm"));
			subscribe(lock, key + "-busy");
			LockHandle handle = lock.tryAcquire(LockRequest.of(key)).orElseThrow();
			AtomicBoolean toldLost = onLost(handle);
			// Its lease ran out, and nobody took the key since: the counter still holds
			// its token.
			redis.store().delete("lock:" + key);
			this.store.proxy.latency(Duration.ofMillis(1500));
			CompletableFuture<Void> release = handle.releaseAsync().toCompletableFuture();
			// Only the subscriber connection drops, while the release is on its way: the
			// release itself is sent once, on a connection that stays up.
			assertThat(killPubSubClients()).isEqualTo(1);
			assertThatThrownBy(() -> join(release)).isInstanceOf(LockLostException.class);
			assertThat(this.lossReports).hasSize(1);
			await().atMost(Duration.ofSeconds(10)).untilTrue(toldLost);
		}
		finally {
			this.store.proxy.latency(Duration.ZERO);
			lock.close();
		}
	}

	/**
	 * Releases a lock of {@code request} whose release script runs on the server, and is
	 * sent again after a cut: the caller is told it released the lock. {@code warm} is a
	 * request of the same kind on another key.
	 */
	private void releaseSentAgain(LockRequest request, LockRequest warm) throws Exception {
		DefaultDistributeLock lock = throwingOnLost(this.store.proxied);
		try {
			warm(lock, warm);
			LockHandle handle = lock.tryAcquire(request).orElseThrow();
			AtomicBoolean toldLost = onLost(handle);
			ResentCalls.resent(this.store.proxy, handle::releaseAsync, () -> !lockedAny(request), () -> {
			});
			assertThat(this.lossReports).as("reported lost").isEmpty();
			assertThat(toldLost).isFalse();
			assertThat(lockedAny(request)).isFalse();
		}
		finally {
			lock.close();
		}
	}

	/** A multi-key request of {@code key.a} and {@code key.b}. */
	private static LockRequest twoKeys(String key) {
		return LockRequest.all(LockRequest.of(key + ".a"), LockRequest.of(key + ".b"));
	}

	/**
	 * Waits for a key another owner holds until the wait time passes, so that the
	 * backend's subscriber connection is open.
	 */
	private void subscribe(DefaultDistributeLock lock, String busyKey) throws Exception {
		Claim other = new Claim(busyKey, UUID.randomUUID().toString());
		assertThat(join(this.store.direct.tryAcquire(other, LEASE)).acquired()).isTrue();
		assertThat(lock.tryAcquire(LockRequest.of(busyKey).withWaitTime(Duration.ofMillis(300)))).isEmpty();
		assertThat(join(this.store.direct.release(other))).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> pubSubClients() == 1);
	}

	private static long pubSubClients() {
		return pubSubClientAddresses().size();
	}

	/**
	 * Closes the subscriber connections on the server's side, as a network fault would.
	 */
	private static long killPubSubClients() {
		List<String> addresses = pubSubClientAddresses();
		redis.store().execute((RedisCallback<Object>) (connection) -> {
			for (String address : addresses) {
				int colon = address.lastIndexOf(':');
				connection.serverCommands()
					.killClient(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
			}
			return null;
		});
		return addresses.size();
	}

	private static List<String> pubSubClientAddresses() {
		Object clients = redis.store()
			.execute((RedisCallback<Object>) (connection) -> connection.execute("CLIENT", bytes("LIST"), bytes("TYPE"),
					bytes("pubsub")));
		String list = (clients instanceof byte[] text) ? new String(text, StandardCharsets.UTF_8)
				: String.valueOf(clients);
		return list.lines()
			.flatMap((line) -> Arrays.stream(line.split(" ")))
			.filter((field) -> field.startsWith("addr="))
			.map((field) -> field.substring("addr=".length()))
			.toList();
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static Claim unique(String key) {
		return new Claim(key, UUID.randomUUID().toString(), null, LockKind.FAIR, true);
	}

	/** Whether any key of the request, multi-key or not, is locked. */
	private static boolean lockedAny(LockRequest request) {
		return request.isMultiKey() ? request.parts().stream().anyMatch((part) -> locked(part.key()))
				: locked(request.key());
	}

	private static boolean locked(String key) {
		return Boolean.TRUE.equals(redis.store().hasKey("lock:" + key));
	}

	private static long fence(String key) {
		return Long.parseLong(redis.store().opsForValue().get("{lock:" + key + "}:fence"));
	}

}
