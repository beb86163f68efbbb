package io.github.distributelock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A fenced resource refuses the writes of a holder whose lock has passed to a newer
 * holder, on tokens from a real Redis.
 */
class FencedResourceTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Test
	void holderWhoseLeaseRanOutCannotOverwriteTheNextHoldersWork() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new RedisLockBackend(factory));
				DefaultDistributeLock otherInstance = new DefaultDistributeLock(new RedisLockBackend(factory))) {
			FencedResource stock = new FencedResource();
			List<String> writes = new ArrayList<>();
			LockHandle paused = lock.tryAcquire("stock.42", Duration.ZERO, Duration.ofMillis(200)).orElseThrow();
			// The first holder stalls past its fixed lease; another instance takes the
			// lock.
			LockHandle next = otherInstance.tryAcquire("stock.42", Duration.ofSeconds(10), Duration.ofSeconds(10))
				.orElseThrow();
			assertThat(next.fencingToken()).isGreaterThan(paused.fencingToken());
			stock.write(next, () -> writes.add("next"));

			assertThatExceptionOfType(StaleFencingTokenException.class)
				.isThrownBy(() -> stock.write(paused.fencingToken(), () -> writes.add("paused")))
				.satisfies((ex) -> assertThat(ex.getHighestAccepted()).isEqualTo(next.fencingToken()))
				.withMessageContaining("stale");
			assertThatExceptionOfType(LockLostException.class)
				.isThrownBy(() -> stock.write(paused, () -> writes.add("paused")))
				.withMessageStartingWith("Lock 'stock.42' was lost before it was released (lease expired or taken "
						+ "over in the store)");
			assertThat(paused.isClosed()).as("lost, not closed").isFalse();
			assertThat(writes).containsExactly("next");
			assertThat(stock.tryAccept(next.fencingToken())).isTrue();
			next.close();
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A handle its holder closed is a caller's mistake, not a loss: the refusal says it
	 * was released, and is not the {@link LockLostException} that reports a loss.
	 */
	@Test
	void aHandleItsHolderClosedIsRefusedAsReleasedNotAsLost() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new RedisLockBackend(factory))) {
			FencedResource stock = new FencedResource();
			List<String> writes = new ArrayList<>();
			LockHandle closed = lock.tryAcquire("stock.7", Duration.ZERO, null).orElseThrow();
			stock.write(closed, () -> writes.add("while held"));
			closed.close();
			assertThat(closed.isClosed()).isTrue();
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> stock.write(closed, () -> writes.add("after close")))
				.withMessage("Lock 'stock.7' was released by its holder (its handle is closed) before this write; "
						+ "write through the handle before closing it")
				.isNotInstanceOf(LockLostException.class);
			LockHandle released = lock.tryAcquire(LockRequest.all(LockRequest.of("stock.8"), LockRequest.of("stock.9")))
				.orElseThrow();
			released.releaseAsync().get(10, TimeUnit.SECONDS);
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> stock.write(released, () -> writes.add("after release")))
				.withMessageStartingWith("Lock '" + released.key() + "' was released by its holder");
			assertThat(writes).containsExactly("while held");
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void aStaleWriterCannotSlipInBetweenANewerWritersCheckAndWrite() throws Exception {
		FencedResource resource = new FencedResource();
		CountDownLatch newerInside = new CountDownLatch(1);
		CountDownLatch staleTried = new CountDownLatch(1);
		AtomicInteger value = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(2);
		try {
			Future<Integer> newer = threads.submit(() -> resource.write(2, () -> {
				newerInside.countDown();
				await().atMost(Duration.ofSeconds(10)).until(() -> staleTried.getCount() == 0);
				return value.addAndGet(10);
			}));
			assertThat(newerInside.await(10, TimeUnit.SECONDS)).isTrue();
			Future<Boolean> stale = threads.submit(() -> {
				staleTried.countDown();
				return resource.tryAccept(1);
			});
			assertThat(newer.get(10, TimeUnit.SECONDS)).isEqualTo(10);
			assertThat(stale.get(10, TimeUnit.SECONDS)).isFalse();
			assertThat(resource.highestAccepted()).isEqualTo(2);
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void acceptsEqualAndHigherTokens() {
		FencedResource resource = new FencedResource();
		assertThat(resource.highestAccepted()).isEqualTo(Long.MIN_VALUE);
		assertThat(resource.tryAccept(5)).isTrue();
		assertThat(resource.tryAccept(5)).isTrue();
		assertThat(resource.tryAccept(4)).isFalse();
		assertThat(resource.write(7, () -> "written")).isEqualTo("written");
		assertThat(resource.highestAccepted()).isEqualTo(7);
	}

}
