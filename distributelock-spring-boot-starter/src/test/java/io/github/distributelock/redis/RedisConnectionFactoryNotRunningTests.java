package io.github.distributelock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@code LettuceConnectionFactory} that is not running (created by hand and never
 * started, or stopped before the lock) is named as such: a lock call on it waited out its
 * whole wait time, the engine retrying the factory's refusal as a store failure.
 */
class RedisConnectionFactoryNotRunningTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	/** Far short of the wait time of the calls below. */
	private static final long BOUND_SECONDS = 10;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void aLockCallOnAFactoryNeverStartedFailsAtOnceSayingToStartIt() throws Exception {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", redis.port()));
		this.closeables.add(factory::destroy);
		assertLockCallFailsAtOnce(factory, "on-a-factory-never-started");
	}

	@Test
	void aLockCallOnAFactoryStoppedFailsAtOnceSayingSo() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		this.closeables.add(factory::destroy);
		factory.stop();
		assertLockCallFailsAtOnce(factory, "on-a-factory-stopped");
	}

	private void assertLockCallFailsAtOnce(LettuceConnectionFactory factory, String key) throws Exception {
		RedisLockBackend backend = new RedisLockBackend(factory);
		this.closeables.add(backend::close);
		DefaultDistributeLock lock = new DefaultDistributeLock(backend);
		this.closeables.add(lock::close);
		FutureTask<Optional<LockHandle>> call = new FutureTask<>(
				() -> lock.tryAcquire(key, Duration.ofSeconds(60), null));
		new Thread(call, "lock-" + key).start();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(BOUND_SECONDS, TimeUnit.SECONDS))
			.havingCause()
			.isInstanceOf(DistributeLockException.class)
			.withMessageContaining("its LettuceConnectionFactory is not running")
			.withMessageContaining("start it before the first lock call");
		assertThat(redis.store().hasKey("lock:" + key)).isFalse();
	}

}
