package io.github.distributelock.fault;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.redis.EmbeddedRedis;
import io.github.distributelock.redis.RedisLockBackend;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 5 s critical section under a 1 s watchdog lease on Redis and PostgreSQL, while other
 * threads of the holder's JVM churn the heap: the watchdog keeps the lock, and a
 * contender gets it only after the release.
 */
class WatchdogUnderGcPressureTests {

	private static final Log logger = LogFactory.getLog(WatchdogUnderGcPressureTests.class);

	private static EmbeddedRedis redis;

	private static LettuceConnectionFactory connectionFactory;

	private static EmbeddedPostgres postgres;

	private static HikariDataSource dataSource;

	@BeforeAll
	static void startStores() throws Exception {
		redis = EmbeddedRedis.start();
		connectionFactory = redis.newConnectionFactory();
		postgres = EmbeddedPostgres.builder()
			.setPort(EmbeddedRedis.freePort())
			.setServerConfig("listen_addresses", "127.0.0.1")
			.start();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres");
		config.setUsername("postgres");
		config.setMaximumPoolSize(4);
		dataSource = new HikariDataSource(config);
		new JdbcLockBackend(dataSource).createSchema();
	}

	@AfterAll
	static void stopStores() throws Exception {
		try {
			if (dataSource != null) {
				dataSource.close();
			}
			if (connectionFactory != null) {
				connectionFactory.destroy();
			}
		}
		finally {
			try {
				if (postgres != null) {
					postgres.close();
				}
			}
			finally {
				if (redis != null) {
					redis.close();
				}
			}
		}
	}

	private static LockBackend newBackend(String store) {
		return "redis".equals(store) ? new RedisLockBackend(connectionFactory) : new JdbcLockBackend(dataSource);
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "postgresql" })
	void watchdogKeepsAOneSecondLeaseThroughFiveSecondsOfWorkUnderGcPressure(String store) throws Exception {
		String key = "gc." + System.nanoTime();
		ExecutorService pool = Executors.newFixedThreadPool(3);
		AtomicBoolean churning = new AtomicBoolean(true);
		LockBackend holderBackend = newBackend(store);
		LockBackend contenderBackend = newBackend(store);
		try (DefaultDistributeLock holder = new DefaultDistributeLock(holderBackend, Duration.ofSeconds(1), true,
				LockEventListener.NONE, null);
				DefaultDistributeLock contender = new DefaultDistributeLock(contenderBackend)) {
			long gcBefore = gcMillis();
			List<Future<Long>> churners = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				churners.add(pool.submit(() -> churn(churning)));
			}
			LockHandle handle = holder.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
			Future<Optional<LockHandle>> waiting = pool
				.submit(() -> contender.tryAcquire(key, Duration.ofSeconds(30), null));
			// The long critical section is the scenario: five leases of work.
			Thread.sleep(5_000);
			assertThat(handle.isHeld()).isTrue();
			assertThat(waiting.isDone()).isFalse();
			handle.close();
			try (LockHandle next = waiting.get(30, TimeUnit.SECONDS).orElseThrow()) {
				assertThat(next.isHeld()).isTrue();
			}
			churning.set(false);
			long allocated = 0;
			for (Future<Long> churner : churners) {
				allocated += churner.get(30, TimeUnit.SECONDS);
			}
			logger.info(store + ": watchdog under GC pressure: " + (allocated >> 20) + " MB allocated, "
					+ (gcMillis() - gcBefore) + " ms in GC during a 5000 ms section on a 1000 ms lease; lost locks: "
					+ holder.lostLockCount());
			assertThat(holder.lostLockCount()).isZero();
		}
		finally {
			churning.set(false);
			pool.shutdownNow();
			close(holderBackend);
			close(contenderBackend);
			assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
		}
	}

	private static void close(LockBackend backend) throws Exception {
		if (backend instanceof AutoCloseable closeable) {
			closeable.close();
		}
	}

	/** Allocates and drops 1 MB arrays, keeping up to 64 MB alive; bounded to 60 s. */
	private static long churn(AtomicBoolean churning) {
		byte[][] live = new byte[64][];
		long allocated = 0;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		for (int i = 0; churning.get() && System.nanoTime() < deadline; i++) {
			live[i % live.length] = new byte[1 << 20];
			allocated += 1 << 20;
		}
		return allocated;
	}

	private static long gcMillis() {
		return ManagementFactory.getGarbageCollectorMXBeans()
			.stream()
			.mapToLong(GarbageCollectorMXBean::getCollectionTime)
			.sum();
	}

}
