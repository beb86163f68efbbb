package io.github.distributelock.redis;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ten thousand callers of {@code tryAcquireAsync} wait for one Redis key at once: each
 * gets the lock in turn and releases it, and no thread is parked for any of them, so the
 * JVM runs no more threads than with ten waiters.
 */
class RedisManyAsyncWaitersTests {

	private static final Log logger = LogFactory.getLog(RedisManyAsyncWaitersTests.class);

	/** Far longer than the test: every waiter is served before its wait ends. */
	private static final Duration WAIT = Duration.ofSeconds(50);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

	private LettuceConnectionFactory connectionFactory;

	private DefaultDistributeLock lock;

	@BeforeEach
	void createLock() {
		this.connectionFactory = redis.newConnectionFactory();
		this.lock = new DefaultDistributeLock(new RedisLockBackend(this.connectionFactory));
	}

	@AfterEach
	void closeLock() {
		try {
			this.lock.close();
		}
		finally {
			this.connectionFactory.destroy();
		}
	}

	@Test
	void tenThousandWaitersAreAllServedWithNoMoreThreadsThanTen() throws Exception {
		String key = "many-waiters." + System.nanoTime();
		// The client's connections, the subscriber and the engine's scheduler start here.
		serve(key, 10);
		Served ten = serve(key, 10);
		Served tenThousand = serve(key, 10_000);
		logger.info("10 waiters on one Redis key: served in " + ten.millis + " ms, " + ten.threadsWhileWaiting
				+ " live threads while they waited, at most " + ten.peakThreads + "; 10000 waiters: served in "
				+ tenThousand.millis + " ms, " + tenThousand.threadsWhileWaiting + " live threads while they waited,"
				+ " at most " + tenThousand.peakThreads);
		assertThat(tenThousand.threadsWhileWaiting).isLessThanOrEqualTo(ten.threadsWhileWaiting);
		assertThat(tenThousand.peakThreads).isLessThanOrEqualTo(ten.peakThreads);
	}

	/**
	 * Starts {@code waiters} acquisitions of {@code key} while it is held, lets them go,
	 * and waits until each has held the lock once, alone, and released it.
	 */
	private Served serve(String key, int waiters) throws Exception {
		LockHandle holder = this.lock.tryAcquire(key, Duration.ZERO, null).orElseThrow();
		this.threads.resetPeakThreadCount();
		AtomicInteger holding = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		List<CompletableFuture<Void>> served = new ArrayList<>(waiters);
		for (int i = 0; i < waiters; i++) {
			served.add(this.lock.tryAcquireAsync(LockRequest.of(key).withWaitTime(WAIT)).thenCompose((handle) -> {
				LockHandle held = handle.orElseThrow(() -> new AssertionError("A waiter was not served"));
				if (holding.incrementAndGet() != 1) {
					overlaps.incrementAndGet();
				}
				holding.decrementAndGet();
				return held.releaseAsync();
			}));
		}
		assertThat(served).noneMatch(CompletableFuture::isDone);
		int threadsWhileWaiting = this.threads.getThreadCount();
		long start = System.nanoTime();
		holder.close();
		CompletableFuture.allOf(served.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		assertThat(overlaps).hasValue(0);
		assertThat(this.lock.heldLocks()).isEmpty();
		return new Served(millis, threadsWhileWaiting, this.threads.getPeakThreadCount());
	}

	private record Served(long millis, int threadsWhileWaiting, int peakThreads) {
	}

}
