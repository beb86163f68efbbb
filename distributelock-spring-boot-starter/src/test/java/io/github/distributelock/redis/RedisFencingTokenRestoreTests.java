package io.github.distributelock.redis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis server that goes back to an older state of its data, restored from a snapshot
 * as after a restart, lost the newest values of its fencing counters: the tokens it
 * issues then are still above every token issued before, as they are never below the
 * server's clock. (A replica promoted before it got the newest value is the same case,
 * see {@code RedisSentinelFailoverTests} and {@code RedisClusterFailoverTests}.)
 */
class RedisFencingTokenRestoreTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = EmbeddedRedisExtension.ofItsOwn();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@Test
	void tokensAfterARestoreFromAnOlderSnapshotAreAboveThoseIssuedBefore(@TempDir Path snapshots) throws Exception {
		LettuceConnectionFactory connectionFactory = redis.newConnectionFactory();
		this.closeables.add(connectionFactory::destroy);
		DefaultDistributeLock lock = this.closeables
			.add(new DefaultDistributeLock(this.closeables.add(new RedisLockBackend(connectionFactory))));
		String key = "restored";
		lock.tryAcquire(LockRequest.of(key)).orElseThrow().close();
		command("CONFIG", "SET", "dir", snapshots.toString());
		command("SAVE");
		long last = 0;
		for (int i = 0; i < 3; i++) {
			try (LockHandle held = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
				last = held.fencingToken();
			}
		}
		// Back to the snapshot, without saving the newer state first.
		command("DEBUG", "RELOAD", "NOSAVE");
		try (LockHandle held = lock.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
			assertThat(held.fencingToken()).isGreaterThan(last);
		}
	}

	private static void command(String command, String... arguments) {
		redis.store().execute((RedisCallback<Object>) (connection) -> {
			byte[][] bytes = new byte[arguments.length][];
			for (int i = 0; i < arguments.length; i++) {
				bytes[i] = arguments[i].getBytes(StandardCharsets.UTF_8);
			}
			return connection.execute(command, bytes);
		});
	}

}
