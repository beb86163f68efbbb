package io.github.distributelock.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.TestKey;
import io.github.distributelock.core.DefaultDistributeLock;
import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Keys outside ASCII on a real Redis Cluster, from a JVM whose default charset is not
 * UTF-8: Java 17 takes it from the locale, and a container without one (LANG unset or
 * {@code C}) runs with US-ASCII. Redis hashes the UTF-8 bytes the backend sends, so the
 * backend must compute slots from those bytes too, never from the default charset.
 */
class RedisClusterKeysUnderAsciiDefaultCharsetTests {

	private static final String MARK = "@charset-check ";

	/** 苹果 and 香蕉: two keys that differ only outside ASCII. */
	private static final String APPLES = ":\u82f9\u679c";

	private static final String BANANAS = ":\u9999\u8549";

	/** 订单 between braces that form no hash tag. */
	private static final String STRAY_BRACES = "}\u8ba2\u5355{";

	@RegisterExtension
	static final EmbeddedRedisClusterExtension redis = new EmbeddedRedisClusterExtension();

	@RegisterExtension
	final TestKey key = new TestKey();

	@Test
	void keysOutsideAsciiAreLockedInTheirOwnSlotsWhateverTheDefaultCharset(@TempDir Path logs) throws Exception {
		String base = this.key.name();
		// Redis puts the two keys in different slots, which the ASCII default charset
		// (both spelled ?? there) would not tell apart.
		assertThat(utf8Slot("lock:" + base + APPLES)).isNotEqualTo(utf8Slot("lock:" + base + BANANAS));
		List<String> lines = runChild(logs, base);
		assumeThat(lines).as("the child JVM's default charset").contains("charset US-ASCII");
		assertThat(lines).contains("all ok", "stray braces ok");
	}

	private static int utf8Slot(String key) {
		return SlotHash.getSlot(key.getBytes(StandardCharsets.UTF_8));
	}

	private static List<String> runChild(Path logs, String base) throws IOException, InterruptedException {
		String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
		List<String> command = new ArrayList<>(List.of(javaBin, "-Xmx256m", "-XX:+UseSerialGC"));
		if (Runtime.version().feature() >= 18) {
			// From Java 18 the default is UTF-8 unless asked for the locale's.
			command.add("-Dfile.encoding=COMPAT");
		}
		command.addAll(
				List.of("-cp", classpath, Child.class.getName(), String.join(",", redis.cluster().seedNodes()), base));
		ProcessBuilder builder = new ProcessBuilder(command).redirectError(logs.resolve("child.err").toFile());
		Map<String, String> environment = builder.environment();
		environment.put("LANG", "C");
		environment.put("LC_ALL", "C");
		Process child = builder.start();
		List<String> lines = new ArrayList<>();
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				if (line.startsWith(MARK)) {
					lines.add(line.substring(MARK.length()));
				}
			}
		}
		finally {
			if (!child.waitFor(60, TimeUnit.SECONDS)) {
				child.destroyForcibly();
			}
		}
		if (!lines.contains("all ok") || !lines.contains("stray braces ok")) {
			lines.add("stderr: " + Files.readString(logs.resolve("child.err"), StandardCharsets.UTF_8));
		}
		return lines;
	}

	/**
	 * Locks the keys on the cluster named by its arguments and prints what happened:
	 * {@code all ok} when a multi-key request of two keys that differ only outside ASCII
	 * was granted, {@code stray braces ok} when a key outside ASCII with braces that form
	 * no hash tag was.
	 */
	static final class Child {

		public static void main(String[] args) throws Exception {
			String base = args[1];
			System.out.println(MARK + "charset " + Charset.defaultCharset().name());
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisClusterConfiguration(List.of(args[0].split(","))),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
			factory.afterPropertiesSet();
			factory.start();
			try (RedisLockBackend backend = new RedisLockBackend(factory);
					DefaultDistributeLock lock = new DefaultDistributeLock(backend)) {
				report("all", () -> {
					try (LockHandle both = lock
						.tryAcquire(LockRequest.all(LockRequest.of(base + APPLES), LockRequest.of(base + BANANAS))
							.withWaitTime(Duration.ofSeconds(2)))
						.orElseThrow()) {
						return both.isHeld();
					}
				});
				report("stray braces", () -> {
					try (LockHandle held = lock.tryAcquire(base + STRAY_BRACES, Duration.ofSeconds(2), null)
						.orElseThrow()) {
						return held.isHeld();
					}
				});
			}
			finally {
				factory.destroy();
			}
			System.exit(0);
		}

		private static void report(String name, Attempt attempt) {
			try {
				System.out.println(MARK + name + (attempt.held() ? " ok" : " not held"));
			}
			catch (Exception ex) {
				System.out.println(MARK + name + " failed: " + ex);
			}
		}

		interface Attempt {

			boolean held() throws Exception;

		}

	}

}
