package io.github.distributelock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.LockHandle;
import io.github.distributelock.core.AbstractLockBackendContractTests;
import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Backends;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.VirtualThreadContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The contract on a single real redis-server, with callers on platform threads and on
 * virtual threads, plus what is particular to Redis: the wire format, round trips per
 * lock and the fencing counter's expiry.
 */
class RedisLockBackendContractTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@Nested
	class OnPlatformThreads extends RedisContract {

	}

	/**
	 * Mutual exclusion, waiting woken by release, hand-over between local threads and
	 * shutdown all work when callers are virtual threads.
	 */
	@Nested
	@VirtualThreadContract
	class OnVirtualThreads extends RedisContract {

	}

	/**
	 * Every lock command on the one connection the backend keeps from a factory that does
	 * not share its native connection.
	 */
	@Nested
	class OnAFactoryThatDoesNotShareItsConnection extends RedisContract {

		@Override
		protected LockBackend newBackend() {
			LettuceConnectionFactory factory = redis.newConnectionFactory();
			factory.setShareNativeConnection(false);
			closeAfterTest(factory::destroy);
			return new RedisLockBackend(factory);
		}

	}

	abstract class RedisContract extends AbstractLockBackendContractTests {

		@Override
		protected LockBackend newBackend() {
			LettuceConnectionFactory factory = redis.newConnectionFactory();
			closeAfterTest(factory::destroy);
			return new RedisLockBackend(factory);
		}

		StringRedisTemplate store() {
			return redis.store();
		}

		@Override
		protected boolean isLockedInStore(String key) {
			return Boolean.TRUE.equals(store().hasKey("lock:" + key));
		}

		@Test
		void storesTheOwnerUnderTheOriginalStartersKeyWithALease() throws Exception {
			DefaultDistributeLock lock = newLock();
			assertThat(lock.tryLock(key(), "owner-1", 0, 10_000)).isTrue();
			assertThat(store().opsForValue().get("lock:" + key())).isEqualTo("owner-1");
			assertThat(store().getExpire("lock:" + key())).isBetween(1L, 10L);
			assertThat(lock.releaseLock(key(), "owner-1")).isTrue();
		}

		@Test
		void respectsALockTakenByTheOriginalStarter() throws Exception {
			// The original starter set lock:<key> to a UUID with SET NX PX.
			String original = UUID.randomUUID().toString();
			store().opsForValue().setIfAbsent("lock:" + key(), original, Duration.ofSeconds(30));
			DefaultDistributeLock lock = newLock();
			assertThat(lock.tryAcquire(key(), Duration.ZERO, null)).isEmpty();
			assertThat(lock.releaseLock(key(), "not-the-owner")).isFalse();
			assertThat(lock.releaseLock(key(), original)).isTrue();
			assertThat(lock.tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
		}

		@Test
		void uncontendedAcquireAndReleaseTakeOneRoundTripEach() throws Exception {
			DefaultDistributeLock lock = newLock();
			lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow().close();
			store().execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> {
				connection.serverCommands().resetConfigStats();
				return null;
			});
			// The key's fencing counter exists now: the common case.
			lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow().close();
			Properties stats = store().execute((org.springframework.data.redis.core.RedisCallback<Properties>) (
					connection) -> connection.serverCommands().info("commandstats"));
			List<String> commands = stats.stringPropertyNames()
				.stream()
				.filter((name) -> name.startsWith("cmdstat_") && !name.equals("cmdstat_info")
						&& !name.equals("cmdstat_config"))
				.toList();
			// Two scripts sent by SHA; every other command ran inside them, on the
			// server.
			assertThat(stats.getProperty("cmdstat_evalsha")).startsWith("calls=2,");
			// The fencing counter is raised to the server clock (TIME, SET) when behind
			// it, as it is after any pause of a microsecond, else kept (PEXPIRE).
			assertThat(commands)
				.contains("cmdstat_evalsha", "cmdstat_set", "cmdstat_incr", "cmdstat_time", "cmdstat_get",
						"cmdstat_publish", "cmdstat_del")
				.isSubsetOf("cmdstat_evalsha", "cmdstat_set", "cmdstat_incr", "cmdstat_time", "cmdstat_pexpire",
						"cmdstat_get", "cmdstat_publish", "cmdstat_del");
		}

		@Test
		void scriptsFlushedFromTheServerAreLoadedAgain() throws Exception {
			DefaultDistributeLock lock = newLock();
			lock.tryAcquire(key() + ".warm-up", Duration.ZERO, null).orElseThrow().close();
			// As after a restart or a failover to a server that never saw the scripts.
			store().execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> {
				connection.scriptingCommands().scriptFlush();
				return null;
			});
			try (LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
				assertThat(isLockedInStore(key())).isTrue();
				store().execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> {
					connection.scriptingCommands().scriptFlush();
					return null;
				});
			}
			assertThat(isLockedInStore(key())).isFalse();
		}

		@Test
		void releaseBetweenAFailedAttemptAndTheWaitIsHeardWithoutAskingRedisAgain() throws Exception {
			RedisLockBackend holder = (RedisLockBackend) trackBackend(newBackend());
			RedisLockBackend waiters = (RedisLockBackend) trackBackend(newBackend());
			String channel = "lock:" + key() + ":released";
			assertThat(Backends.tryAcquire(holder, key(), "holder", Duration.ofSeconds(30)).acquired()).isTrue();
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				// A first waiter keeps the key's release channel subscribed.
				AcquireResult firstAttempt = Backends.tryAcquire(waiters, key(), "first", Duration.ofSeconds(30));
				assertThat(firstAttempt.acquired()).isFalse();
				Future<?> first = executor
					.submit(() -> Backends.join(waiters.awaitRelease(new LockBackend.Claim(key(), "first"),
							firstAttempt, Deadline.after(Duration.ofSeconds(30)))));
				await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(channel) == 1);
				AcquireResult secondAttempt = Backends.tryAcquire(waiters, key(), "second", Duration.ofSeconds(30));
				assertThat(secondAttempt.acquired()).isFalse();
				assertThat(Backends.release(holder, key(), "holder")).isTrue();
				first.get(10, TimeUnit.SECONDS);
				resetStats();
				long start = System.nanoTime();
				Backends.join(waiters.awaitRelease(new LockBackend.Claim(key(), "second"), secondAttempt,
						Deadline.after(Duration.ofSeconds(30))));
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
				assertThat(commandStats().getProperty("cmdstat_exists")).as("EXISTS sent").isNull();
			}
			finally {
				executor.shutdownNow();
			}
			assertThat(Backends.tryAcquire(waiters, key(), "second", Duration.ofSeconds(30)).acquired()).isTrue();
			assertThat(Backends.release(waiters, key(), "second")).isTrue();
		}

		private long subscribers(String channel) {
			Long count = store().execute(
					RedisScript.of("return redis.call('PUBSUB', 'NUMSUB', ARGV[1])[2]", Long.class), List.of(),
					channel);
			return (count != null) ? count : 0;
		}

		private void resetStats() {
			store().execute((org.springframework.data.redis.core.RedisCallback<Object>) (connection) -> {
				connection.serverCommands().resetConfigStats();
				return null;
			});
		}

		private Properties commandStats() {
			return store().execute((org.springframework.data.redis.core.RedisCallback<Properties>) (
					connection) -> connection.serverCommands().info("commandstats"));
		}

		@Test
		void fencingCounterSharesTheHashSlotAndExpiresWhenIdle() throws Exception {
			DefaultDistributeLock lock = newLock();
			lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow().close();
			String fence = "{lock:" + key() + "}:fence";
			assertThat(store().hasKey(fence)).isTrue();
			assertThat(store().getExpire(fence)).isBetween(1L, 60L);
			assertThat(store().hasKey("lock:" + key())).isFalse();
		}

		@Test
		void fencingTokensKeepGrowingAfterTheCounterExpired() throws Exception {
			DefaultDistributeLock lock = newLock();
			long first;
			try (LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
				first = handle.fencingToken();
			}
			store().delete("{lock:" + key() + "}:fence");
			try (LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
				assertThat(handle.fencingToken()).isGreaterThan(first);
			}
		}

		@Test
		void keysWithBracesThatAreNotHashTagsStillWork() throws Exception {
			DefaultDistributeLock lock = newLock();
			for (String odd : List.of("a}b", "{}x", "x{y", "{tag}rest", "quote'\"--;\n/..\u00e9\u4e2d")) {
				try (LockHandle handle = lock.tryAcquire(key() + odd, Duration.ZERO, null).orElseThrow()) {
					assertThat(isLockedInStore(key() + odd)).isTrue();
				}
				assertThat(isLockedInStore(key() + odd)).isFalse();
			}
		}

	}

}
