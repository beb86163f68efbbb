package io.github.distributelock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lost-lock listener that calls Redis through the application's template, on the
 * connection factory of the lock: told on the lock service's own thread, not on the
 * client's event loop that found the loss, its call is answered and the other locks of
 * that connection keep being renewed.
 */
class RedisLostListenerTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void aListenerThatCallsRedisOnTheLocksConnectionFactoryRunsOffTheEventLoop() throws Exception {
		LettuceConnectionFactory factory = EmbeddedRedis.connectionFactory(redis.port(), Duration.ofSeconds(3));
		this.closeables.add(factory::destroy);
		StringRedisTemplate template = new StringRedisTemplate(factory);
		template.afterPropertiesSet();
		RedisLockBackend backend = this.closeables.add(new RedisLockBackend(factory));
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(backend, Duration.ofMillis(1200), false, LockEventListener.NONE, null));
		LockHandle lost = lock.tryAcquire("lost.listener.a", Duration.ZERO, null).orElseThrow();
		LockHandle healthy = lock.tryAcquire("lost.listener.b", Duration.ZERO, null).orElseThrow();
		CompletableFuture<String> audit = new CompletableFuture<>();
		lost.onLost((handle) -> {
			try {
				template.opsForValue().set("lost.listener.audit", "lost " + handle.key());
				audit.complete(Thread.currentThread().getName());
			}
			catch (RuntimeException ex) {
				audit.completeExceptionally(ex);
			}
		});
		// Another instance took the key after this one's lease ran out; the next renewal
		// finds it gone.
		redis.store().opsForValue().set("lock:lost.listener.a", "another-instance");
		assertThat(audit.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo("distributelock-lost-listeners");
		assertThat(redis.store().opsForValue().get("lost.listener.audit")).isEqualTo("lost lost.listener.a");
		assertThat(healthy.isHeld()).isTrue();
		assertThat(lock.lostLockCount()).isOne();
		healthy.close();
		assertThat(lock.lostLockCount()).isOne();
	}

}
