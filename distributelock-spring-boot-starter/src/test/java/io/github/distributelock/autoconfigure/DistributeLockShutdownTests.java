package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closing the application context is a clean shutdown: the locks it held are released in
 * the store and its waiting threads are told at once.
 */
@ExtendWith(OutputCaptureExtension.class)
class DistributeLockShutdownTests {

	private static final Duration LONG_WAIT = Duration.ofSeconds(60);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private static StringRedisTemplate store;

	private final ExecutorService callers = Executors.newCachedThreadPool();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
		.withUserConfiguration(CountingBackendConfiguration.class)
		.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.port());

	@BeforeAll
	static void inspectTheStore() {
		store = redis.store();
	}

	@AfterEach
	void stopCallers() {
		this.callers.shutdownNow();
	}

	@Test
	void closingTheContextReleasesEveryLockAndWakesEveryWaiter(CapturedOutput output) throws Exception {
		LettuceConnectionFactory otherInstanceConnection = redis.newConnectionFactory();
		RedisLockBackend otherInstanceBackend = new RedisLockBackend(otherInstanceConnection);
		DefaultDistributeLock otherInstance = new DefaultDistributeLock(otherInstanceBackend);
		try {
			LockHandle heldElsewhere = otherInstance.tryAcquire("shutdown.elsewhere", Duration.ZERO, null)
				.orElseThrow();
			List<CompletableFuture<DistributeLockException>> waiters = new ArrayList<>();
			this.contextRunner.run((context) -> {
				DistributeLock lock = context.getBean(DistributeLock.class);
				lock.tryAcquire("shutdown.handle", Duration.ZERO, null).orElseThrow();
				assertThat(lock.tryLock("shutdown.value", "value-1", 0, 60_000)).isTrue();
				assertThat(lockKeys()).contains("lock:shutdown.handle", "lock:shutdown.value",
						"lock:shutdown.elsewhere");
				// Waits in the store for a lock another instance holds...
				waiters.add(waitExpectingShutdown(lock, "shutdown.elsewhere", null));
				assertThat(context.getBean(CountingLockBackend.class).waiting.await(10, TimeUnit.SECONDS)).isTrue();
				// ...and at this instance's gate for a lock another thread of it holds.
				AtomicReference<Thread> gateThread = new AtomicReference<>();
				waiters.add(waitExpectingShutdown(lock, "shutdown.handle", gateThread));
				await().atMost(Duration.ofSeconds(10))
					.until(() -> gateThread.get() != null && gateThread.get().getState() == Thread.State.TIMED_WAITING);
				context.close();
			});
			// Each waiter would wait 60 s: returning within 10 s means the shutdown woke
			// it.
			for (CompletableFuture<DistributeLockException> waiter : waiters) {
				assertThat(waiter.get(10, TimeUnit.SECONDS)).hasMessageContaining("shutting down");
			}
			assertThat(lockKeys()).containsExactly("lock:shutdown.elsewhere");
			heldElsewhere.close();
			assertThat(lockKeys()).isEmpty();
			// The woken waiters ended before the Redis client stopped under them.
			assertThat(output).doesNotContain("Connection failure occurred").doesNotContain("aborted with exception");
		}
		finally {
			otherInstance.close();
			otherInstanceBackend.close();
			otherInstanceConnection.destroy();
		}
	}

	@Test
	void stoppingTheContextWithoutClosingItLeavesTheLockServiceRunning() {
		this.contextRunner.run((context) -> {
			context.stop();
			context.start();
			DistributeLock lock = context.getBean(DistributeLock.class);
			try (LockHandle handle = lock.tryAcquire("restarted", Duration.ZERO, null).orElseThrow()) {
				assertThat(lockKeys()).contains("lock:restarted");
			}
		});
	}

	private CompletableFuture<DistributeLockException> waitExpectingShutdown(DistributeLock lock, String key,
			AtomicReference<Thread> thread) {
		return CompletableFuture.supplyAsync(() -> {
			if (thread != null) {
				thread.set(Thread.currentThread());
			}
			try {
				lock.tryAcquire(key, LONG_WAIT, null).ifPresent(LockHandle::close);
				throw new AssertionError("acquired '" + key + "' instead of being woken by the shutdown");
			}
			catch (DistributeLockException ex) {
				assertThat(Thread.currentThread().isInterrupted()).as("interrupt status after the wake-up").isFalse();
				return ex;
			}
			catch (InterruptedException ex) {
				throw new AssertionError("interrupted instead of told of the shutdown", ex);
			}
		}, this.callers);
	}

	/** The lock keys in Redis; the fencing counters, which expire when idle, are not. */
	private static Set<String> lockKeys() {
		return store.keys("lock:*");
	}

	@Configuration(proxyBeanMethods = false)
	static class CountingBackendConfiguration {

		@Bean
		CountingLockBackend countingLockBackend(ObjectProvider<RedisConnectionFactory> connectionFactory) {
			return new CountingLockBackend(new RedisLockBackend(connectionFactory.getObject()));
		}

	}

}
