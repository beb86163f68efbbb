package io.github.distributelock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nothing of a lock is left in Redis after many contended cycles of each kind, among them
 * waiters that give up at once (they queue, then leave): no lock word, no queue, no
 * waiter lease, no holder; only the fencing counter, which expires on its own once idle,
 * and the last 128 to 160 releases of readers and permit holders, which expire likewise.
 * The cycles per kind are {@code -Ddistributelock.test.kind-cycles} (2,000 by default;
 * the figure in {@code docs/backends/redis.md} was measured with 100,000).
 */
class RedisLockKindsLeakTests {

	private static final int CYCLES = Integer.getInteger("distributelock.test.kind-cycles", 2_000);

	private static final int INSTANCES = 2;

	private static final int THREADS = 2;

	private static final Log logger = LogFactory.getLog(RedisLockKindsLeakTests.class);

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final Closeables closeables = new Closeables();

	private final ExecutorService workers = Executors.newFixedThreadPool(INSTANCES * THREADS);

	@AfterEach
	void closeAll() throws Exception {
		this.workers.shutdownNow();
		this.closeables.close();
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "exclusive", "fair", "read-write", "permits" })
	void noKeyIsLeftAfterManyCycles(String kind) throws Exception {
		String key = "leak." + kind + "." + System.nanoTime();
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger gaveUp = new AtomicInteger();
		long start = System.nanoTime();
		List<Future<?>> running = new ArrayList<>();
		for (int instance = 0; instance < INSTANCES; instance++) {
			RedisLockBackend backend = this.closeables
				.add(RedisLockKindsContractTests.backend(redis.newConnectionFactory(), RedisKindScripts.WAITER_LEASE));
			DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend));
			for (int thread = 0; thread < THREADS; thread++) {
				running.add(this.workers.submit(() -> {
					for (int i = 0; i < CYCLES / (INSTANCES * THREADS); i++) {
						// Every tenth caller does not wait: when the key is taken it
						// leaves the queue at once.
						Duration wait = (i % 10 == 9) ? Duration.ZERO : Duration.ofSeconds(30);
						try (LockHandle handle = lock.tryAcquire(request(kind, key, i).withWaitTime(wait))
							.orElse(null)) {
							((handle != null) ? acquired : gaveUp).incrementAndGet();
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : running) {
			worker.get(30, TimeUnit.MINUTES);
		}
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
		List<String> left = keysOf(key);
		List<String> leaked = left.stream()
			.filter((name) -> !name.endsWith("}:fence") && !name.endsWith("}:releases"))
			.toList();
		logger.info(kind + ": " + acquired + " acquired and " + gaveUp + " given up in " + millis + " ms; keys left "
				+ "besides the fencing counter: " + leaked.size() + " " + leaked + "; fencing counters: "
				+ (left.size() - leaked.size()));
		assertThat(acquired.get() + gaveUp.get()).isEqualTo(CYCLES / (INSTANCES * THREADS) * INSTANCES * THREADS);
		assertThat(acquired.get()).isPositive();
		assertThat(leaked).isEmpty();
		assertThat(left).contains("{lock:" + key + "}:fence");
		for (String name : left) {
			// Kept no longer than an idle fencing counter, then gone on their own.
			assertThat(redis.store().getExpire(name, TimeUnit.MILLISECONDS)).as(name)
				.isBetween(1L, RedisLockBackend.DEFAULT_FENCE_IDLE_TIMEOUT.toMillis());
		}
		if (kind.equals("read-write") || kind.equals("permits")) {
			// However busy the key, only its last releases are remembered.
			assertThat(redis.store().opsForList().size("{lock:" + key + "}:releases")).isBetween(128L, 160L);
		}
	}

	private static LockRequest request(String kind, String key, int cycle) {
		LockRequest request = LockRequest.of(key);
		return switch (kind) {
			case "fair" -> request.withFair(true);
			case "read-write" -> request.withMode((cycle % 4 == 0) ? LockMode.WRITE : LockMode.READ);
			case "permits" -> request.withPermits(2);
			default -> request;
		};
	}

	private static List<String> keysOf(String key) {
		List<String> keys = new ArrayList<>();
		try (Cursor<String> cursor = redis.store()
			.scan(ScanOptions.scanOptions().match("*" + key + "*").count(1_000).build())) {
			cursor.forEachRemaining(keys::add);
		}
		return keys;
	}

}
