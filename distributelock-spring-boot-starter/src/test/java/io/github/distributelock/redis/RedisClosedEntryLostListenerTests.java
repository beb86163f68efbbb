package io.github.distributelock.redis;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockHandle#onLost} tells of a loss before the handle is closed: a reentrant
 * entry (a plain one, or a key of a multi-key request) closed while the outer hold keeps
 * the lock is not told when that lock is lost later, and its listeners are not kept for
 * as long as the outer hold lasts.
 */
class RedisClosedEntryLostListenerTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void aClosedReentrantEntryIsNotToldOfALossOfTheOuterHold() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		this.closeables.add(factory::destroy);
		RedisLockBackend backend = this.closeables.add(new RedisLockBackend(factory));
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(backend, Duration.ofMillis(900), false, LockEventListener.NONE, null));
		String key = "closed.entry." + System.nanoTime();
		LockHandle outer = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		AtomicInteger closedEntriesTold = new AtomicInteger();
		LockHandle inner = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		inner.onLost((lost) -> closedEntriesTold.incrementAndGet());
		inner.close();
		LockHandle multi = lock.tryAcquire(LockRequest.all(LockRequest.of(key), LockRequest.of(key + ".other")))
			.orElseThrow();
		multi.onLost((lost) -> closedEntriesTold.incrementAndGet());
		multi.close();
		assertThat(outer.isHeld()).isTrue();
		CountDownLatch outerLost = new CountDownLatch(1);
		outer.onLost((lost) -> outerLost.countDown());
		// Another instance took the key; the next renewal finds it gone.
		redis.store().opsForValue().set("lock:" + key, "another-instance");
		// Listeners are told one after the other in the order they were registered: the
		// closed entries' before the outer hold's.
		assertThat(outerLost.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
		assertThat(closedEntriesTold).as("closed entries told of the loss").hasValue(0);
		outer.close();
		assertThat(lock.lostLockCount()).isOne();
	}

}
