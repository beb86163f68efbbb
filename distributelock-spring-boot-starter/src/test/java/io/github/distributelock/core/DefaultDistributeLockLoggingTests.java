package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The log lines operators rely on, in the category {@code DefaultDistributeLock}, on a
 * real redis-server: one DEBUG line per acquisition from the store and per release, with
 * the key and the time waited or held, and a WARN line for a lost lock and for a failed
 * renewal.
 */
@ExtendWith(OutputCaptureExtension.class)
class DefaultDistributeLockLoggingTests {

	private static final String CATEGORY = DefaultDistributeLock.class.getName();

	private static final LoggingSystem loggingSystem = LoggingSystem
		.get(DefaultDistributeLockLoggingTests.class.getClassLoader());

	/** Its own server, as a test stops it. */
	@RegisterExtension
	static final EmbeddedRedisExtension redis = EmbeddedRedisExtension.ofItsOwn();

	@RegisterExtension
	final Closeables closeables = new Closeables();

	@BeforeEach
	void logAtDebug() {
		loggingSystem.setLogLevel(CATEGORY, LogLevel.DEBUG);
	}

	@AfterEach
	void logAsConfigured() {
		loggingSystem.setLogLevel(CATEGORY, null);
	}

	@Test
	void debugLinePerAcquisitionAndReleaseWithTheKeyAndTheTimeWaitedOrHeld(CapturedOutput output) throws Exception {
		DefaultDistributeLock holder = newLock(DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE);
		DefaultDistributeLock other = newLock(DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE);
		LockHandle handle = holder.tryAcquire("log.account:1", Duration.ZERO, null).orElseThrow();
		// A reentrant entry does not reach the store and writes no line.
		holder.tryAcquire("log.account:1", Duration.ZERO, null).orElseThrow().close();
		// The lock is held for at least the 300 ms the other instance waits in vain.
		assertThat(other.tryAcquire("log.account:1", Duration.ofMillis(300), null)).isEmpty();
		handle.close();
		assertThat(number(lines(output, "DEBUG", "Acquired lock 'log\\.account:1' in redis after waiting (\\d+) ms")))
			.isNotNegative();
		assertThat(number(lines(output, "DEBUG", "Did not acquire lock 'log\\.account:1' in redis within (\\d+) ms")))
			.isGreaterThanOrEqualTo(300);
		assertThat(number(lines(output, "DEBUG", "Released lock 'log\\.account:1' in redis after holding it (\\d+) ms "
				+ "\\(fencing token " + handle.fencingToken() + "\\)")))
			.isGreaterThanOrEqualTo(300);
	}

	@Test
	void debugLinesAreOffAtInfo(CapturedOutput output) throws Exception {
		loggingSystem.setLogLevel(CATEGORY, LogLevel.INFO);
		DefaultDistributeLock lock = newLock(DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE);
		lock.tryAcquire("log.quiet:1", Duration.ZERO, null).orElseThrow().close();
		assertThat(output).doesNotContain("log.quiet:1");
	}

	@Test
	void warnLineForALostLock(CapturedOutput output) throws Exception {
		DefaultDistributeLock lock = newLock(DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE);
		LockHandle handle = lock.tryAcquire("log.lost:1", Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
		String lost = "Lock 'log\\.lost:1' in redis was lost while held \\(its fixed lease of 300 ms ran out\\); "
				+ "another holder may run the same work concurrently";
		await().atMost(Duration.ofSeconds(10)).until(() -> lines(output, "WARN", lost).size() == 1);
		handle.close();
		assertThat(lines(output, "WARN", "Lock 'log\\.lost:1' in redis was lost")).hasSize(1);
	}

	@Test
	void warnLineForAFailedRenewal(CapturedOutput output) throws Exception {
		// Renewed every 2 s: the first renewal fails well before the 6 s lease runs out.
		DefaultDistributeLock lock = newLock(Duration.ofSeconds(6));
		LockHandle handle = lock.tryAcquire("log.renewal:1", Duration.ZERO, null).orElseThrow();
		redis.stop();
		try {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> !lines(output, "WARN",
						"Could not renew lock 'log\\.renewal:1' in redis; retrying while the lease lasts: \\S")
					.isEmpty());
			assertThat(output).doesNotContain("Lock 'log.renewal:1' in redis was lost");
		}
		finally {
			redis.restart();
		}
		await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
			((LockStoreProbe) lock.backend()).probe();
			return true;
		});
		handle.close();
	}

	private DefaultDistributeLock newLock(Duration watchdogLease) {
		LettuceConnectionFactory factory = EmbeddedRedis.connectionFactory(redis.port(), Duration.ofMillis(500));
		this.closeables.add(factory::destroy);
		RedisLockBackend backend = new RedisLockBackend(factory);
		this.closeables.add(backend);
		DefaultDistributeLock lock = new DefaultDistributeLock(backend, watchdogLease, false, LockEventListener.NONE,
				null);
		this.closeables.add(lock);
		return lock;
	}

	/** The lines of the output at {@code level} whose message matches. */
	private static List<MatchResult> lines(CapturedOutput output, String level, String message) {
		return Pattern.compile("^.*\\b" + level + "\\b.*" + message + ".*$", Pattern.MULTILINE)
			.matcher(output.getOut())
			.results()
			.toList();
	}

	/** The number in the first group of the only matching line. */
	private static long number(List<MatchResult> lines) {
		assertThat(lines).hasSize(1);
		return Long.parseLong(lines.get(0).group(1));
	}

}
