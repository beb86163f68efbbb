package io.github.distributelock.redis;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lock service given a scheduler of the application's leaves nothing on it once closed:
 * the scheduler outlives the service, and a periodic task left there would run for as
 * long, keeping the closed service and its store client reachable.
 */
class RedisWatchdogOnAGivenSchedulerTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void closeLeavesNoTaskOfTheWatchdogOnTheGivenScheduler() throws Exception {
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
		scheduler.setRemoveOnCancelPolicy(true);
		this.closeables.add(scheduler::shutdownNow);
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		this.closeables.add(factory::destroy);
		RedisLockBackend backend = this.closeables.add(new RedisLockBackend(factory));
		DefaultDistributeLock lock = new DefaultDistributeLock(backend, Duration.ofMillis(900), false,
				LockEventListener.NONE, scheduler);
		String key = "given.scheduler." + System.nanoTime();
		try (LockHandle handle = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
			assertThat(handle.isHeld()).isTrue();
			assertThat(scheduler.getQueue()).as("the watchdog's ticks while a lock is held").isNotEmpty();
		}
		lock.close();
		assertThat(scheduler.isShutdown()).as("the application's scheduler is left running").isFalse();
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(scheduler.getQueue()).isEmpty());
	}

}
