package io.github.distributelock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.LockBackend.Claim;
import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.distributelock.core.Backends.join;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * With replica acknowledgements, attempts run on a connection of the backend's own, where
 * they queue behind each other's {@code WAIT}: an attempt whose answer did not come
 * within the command timeout still runs once the {@code WAIT} before it ends. The engine
 * gives such an attempt back; that release must not overtake it, or the lock stays in the
 * store, held by nobody, for its whole lease.
 */
class RedisReplicaAckGiveBackTests {

	private static final Duration LEASE = Duration.ofSeconds(30);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Test
	void theGiveBackOfAnUnansweredAttemptRunsAfterIt() throws Exception {
		StringRedisTemplate store = redis.store();
		// No replica answers: each WAIT holds the backend's connection for the whole
		// acknowledgement timeout, longer than a command may take, as several WAITs
		// queued one behind the other do.
		LettuceConnectionFactory factory = EmbeddedRedis.connectionFactory(redis.port(), Duration.ofMillis(300));
		try (RedisLockBackend backend = new RedisLockBackend(factory, RedisLockBackend.DEFAULT_KEY_PREFIX,
				RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT, 1, Duration.ofSeconds(2))) {
			CompletableFuture<AcquireResult> first = backend.tryAcquire(new Claim("give-back-first", "first"), LEASE)
				.toCompletableFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients(store) == 1);
			Claim late = new Claim("give-back-late", "late");
			Throwable unanswered = catchThrowable(() -> join(backend.tryAcquire(late, LEASE)));
			assertThat(unanswered).isInstanceOf(RedisCommandTimeoutException.class);
			// What the engine does with an attempt whose answer failed: it releases it,
			// and
			// retries a release that failed (timed out behind the WAIT) until one is
			// answered.
			await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> join(backend.release(late)) != null);
			// Once a command sent after both is answered, the attempt and its give-back
			// have run, in the order they were sent.
			Claim probe = new Claim("give-back-probe", "probe");
			await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> !join(backend.renew(probe, LEASE)));
			assertThat(store.hasKey("lock:give-back-late")).isFalse();
			first.handle((result, failure) -> null).join();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void theGiveBackOfAnUnansweredMultiKeyAttemptRunsAfterIt() throws Exception {
		StringRedisTemplate store = redis.store();
		LettuceConnectionFactory factory = EmbeddedRedis.connectionFactory(redis.port(), Duration.ofMillis(300));
		try (RedisLockBackend backend = new RedisLockBackend(factory, RedisLockBackend.DEFAULT_KEY_PREFIX,
				RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT, 1, Duration.ofSeconds(2))) {
			// Several keys first, so that the server has the script when the late attempt
			// reaches it.
			CompletableFuture<?> first = backend
				.tryAcquireAll(List.of(new Claim("multi-give-back-first-a", "first"),
						new Claim("multi-give-back-first-b", "first")), List.of(LEASE, LEASE))
				.toCompletableFuture();
			await().atMost(Duration.ofSeconds(10)).until(() -> blockedClients(store) == 1);
			List<Claim> late = List.of(new Claim("multi-give-back-a", "late"), new Claim("multi-give-back-b", "late"));
			Throwable unanswered = catchThrowable(() -> join(backend.tryAcquireAll(late, List.of(LEASE, LEASE))));
			assertThat(unanswered).isInstanceOf(RedisCommandTimeoutException.class);
			await().atMost(Duration.ofSeconds(10))
				.ignoreExceptions()
				.until(() -> join(backend.releaseAll(late)) != null);
			Claim probe = new Claim("multi-give-back-probe", "probe");
			await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> !join(backend.renew(probe, LEASE)));
			assertThat(store.hasKey("lock:multi-give-back-a")).isFalse();
			assertThat(store.hasKey("lock:multi-give-back-b")).isFalse();
			first.handle((result, failure) -> null).join();
		}
		finally {
			factory.destroy();
		}
	}

	private static long blockedClients(StringRedisTemplate store) {
		Properties clients = store
			.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands().info("clients"));
		return Long.parseLong(clients.getProperty("blocked_clients", "0"));
	}

}
