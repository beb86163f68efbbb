package io.github.distributelock.autoconfigure;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.TestKey;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import io.github.distributelock.redis.RedisSubscribers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A context stopped and started again ({@code stop()} then {@code start()}, which leaves
 * the lock service running) stops and starts the Redis connection factory under the lock:
 * its commands and its release subscriptions must work on the new client.
 */
class RedisContextRestartTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private static final Duration HOLDER_LEASE = Duration.ofSeconds(30);

	private final ExecutorService callers = Executors.newCachedThreadPool();

	private final Closeables closeables = new Closeables();

	@RegisterExtension
	final TestKey key = new TestKey();

	@AfterEach
	void stop() throws Exception {
		this.callers.shutdownNow();
		assertThat(this.callers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		this.closeables.close();
	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
		.withPropertyValues("distributelock.type=redis", "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redis.port());

	@Test
	void aWaiterIsWokenByTheReleaseAfterTheContextWasStoppedAndStartedAgain() {
		this.runner.run((context) -> {
			DistributeLock lock = context.getBean(DistributeLock.class);
			DefaultDistributeLock other = otherInstance();
			String before = this.key.name() + ".before";
			// A wait before the restart, so that the release listener listens on the
			// first client.
			try (LockHandle held = other.tryAcquire(before, Duration.ZERO, HOLDER_LEASE).orElseThrow()) {
				assertThat(lock.tryAcquire(before, Duration.ofMillis(300), null)).isEmpty();
			}

			context.stop();
			context.start();

			String key = this.key.name() + ".after";
			try (LockHandle mine = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
				assertThat(redis.store().hasKey("lock:" + key)).isTrue();
			}
			LockHandle held = other.tryAcquire(key, Duration.ZERO, HOLDER_LEASE).orElseThrow();
			CompletableFuture<Optional<LockHandle>> waiter = CompletableFuture
				.supplyAsync(() -> acquire(lock, key, Duration.ofSeconds(20)), this.callers);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> RedisSubscribers.of(redis.store(), "lock:" + key + ":released") > 0);
			held.close();
			// Woken by the release, not by the holder's lease (30 s) nor its wait (20 s).
			Optional<LockHandle> taken = waiter.get(10, TimeUnit.SECONDS);
			assertThat(taken).isPresent();
			taken.get().close();
			assertThat(redis.store().hasKey("lock:" + key)).isFalse();
		});
	}

	@Test
	void aWaitThroughTheStopAndStartIsSubscribedAnewByTheNextSubscriptionOfAnyKey() {
		this.runner.run((context) -> {
			DistributeLock lock = context.getBean(DistributeLock.class);
			DefaultDistributeLock other = otherInstance();
			String through = this.key.name() + ".through";
			LockHandle held = other.tryAcquire(through, Duration.ZERO, HOLDER_LEASE).orElseThrow();
			CompletableFuture<Optional<LockHandle>> waiter = CompletableFuture
				.supplyAsync(() -> acquire(lock, through, Duration.ofSeconds(20)), this.callers);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> RedisSubscribers.of(redis.store(), "lock:" + through + ":released") > 0);

			context.stop();
			context.start();

			String next = this.key.name() + ".next";
			try (LockHandle nextHeld = other.tryAcquire(next, Duration.ZERO, HOLDER_LEASE).orElseThrow()) {
				assertThat(lock.tryAcquire(next, Duration.ofMillis(300), null)).isEmpty();
			}
			await().atMost(Duration.ofSeconds(10))
				.until(() -> RedisSubscribers.of(redis.store(), "lock:" + through + ":released") > 0);
			held.close();
			// Woken by the release, not by the holder's lease (30 s) nor its wait (20 s).
			Optional<LockHandle> taken = waiter.get(10, TimeUnit.SECONDS);
			assertThat(taken).isPresent();
			taken.get().close();
		});
	}

	private DefaultDistributeLock otherInstance() {
		LettuceConnectionFactory connection = redis.newConnectionFactory();
		this.closeables.add(connection::destroy);
		RedisLockBackend backend = this.closeables.add(new RedisLockBackend(connection));
		return this.closeables.add(new DefaultDistributeLock(backend));
	}

	private static Optional<LockHandle> acquire(DistributeLock lock, String key, Duration wait) {
		try {
			return lock.tryAcquire(key, wait, null);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
