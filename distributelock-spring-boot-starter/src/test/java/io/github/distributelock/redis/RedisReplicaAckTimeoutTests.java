package io.github.distributelock.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The replica acknowledgement timeout of a backend built by hand: {@code WAIT} takes
 * whole milliseconds, and {@code WAIT n 0} waits for ever, so a timeout under 1 ms is
 * refused as a zero one is, instead of blocking the acknowledgement connection whenever a
 * replica does not answer.
 */
class RedisReplicaAckTimeoutTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Test
	void aTimeoutUnderOneMillisecondIsRefused() throws Exception {
		LettuceConnectionFactory factory = redis.newConnectionFactory();
		try {
			assertThatIllegalArgumentException().isThrownBy(() -> {
				try (RedisLockBackend backend = new RedisLockBackend(factory, RedisLockBackend.DEFAULT_KEY_PREFIX,
						RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT, 1, Duration.ofNanos(500_000))) {
					// Built: the assertion fails.
				}
			}).withMessageContaining("at least 1 ms").withMessageContaining("PT0.0005S");
		}
		finally {
			factory.destroy();
		}
	}

}
