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
import java.util.concurrent.atomic.AtomicLong;

import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.jdbc.JdbcLockBackend;
import io.github.distributelock.jdbc.JdbcTestDatabaseExtension;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import io.github.distributelock.redis.RedisLockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A 5 s critical section under a 1 s watchdog lease on Redis and PostgreSQL, while other
 * threads of the holder's JVM churn the heap and a full collection is requested four
 * times a second: the collectors are shown to have run, the watchdog keeps the lock, and
 * a contender gets it only after the release.
 */
class WatchdogUnderGcPressureTests {

	private static final Log logger = LogFactory.getLog(WatchdogUnderGcPressureTests.class);

	/** How often a full collection is requested on top of the churn. */
	private static final Duration COLLECTION_PERIOD = Duration.ofMillis(250);

	/**
	 * The fewest collections during the 5 s section that count as GC pressure: one every
	 * half second.
	 */
	private static final long MIN_COLLECTIONS = 10;

	/**
	 * The least time in GC during the section that counts as GC pressure: a tenth of it.
	 */
	private static final long MIN_GC_MILLIS = 500;

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	@RegisterExtension
	static final JdbcTestDatabaseExtension databases = new JdbcTestDatabaseExtension("postgresql");

	private static LockBackend newBackend(String store) {
		return "redis".equals(store) ? new RedisLockBackend(redis.store().getRequiredConnectionFactory())
				: new JdbcLockBackend(databases.get(store).inspection());
	}

	@ParameterizedTest
	@ValueSource(strings = { "redis", "postgresql" })
	void watchdogKeepsAOneSecondLeaseThroughFiveSecondsOfWorkUnderGcPressure(String store) throws Exception {
		String key = "gc." + System.nanoTime();
		ExecutorService pool = Executors.newFixedThreadPool(4);
		AtomicBoolean churning = new AtomicBoolean(true);
		LockBackend holderBackend = newBackend(store);
		LockBackend contenderBackend = newBackend(store);
		try (DefaultDistributeLock holder = new DefaultDistributeLock(holderBackend, Duration.ofSeconds(1), true,
				LockEventListener.NONE, null);
				DefaultDistributeLock contender = new DefaultDistributeLock(contenderBackend)) {
			List<Future<Long>> churners = new ArrayList<>();
			for (int i = 0; i < 2; i++) {
				churners.add(pool.submit(() -> churn(churning)));
			}
			Future<Long> collector = pool.submit(() -> collectEvery(COLLECTION_PERIOD, churning));
			LockHandle handle = holder.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
			GcActivity atStart = GcActivity.now();
			Future<Optional<LockHandle>> waiting = pool
				.submit(() -> contender.tryAcquire(key, Duration.ofSeconds(30), null));
			GcActivity during;
			long longestCollection;
			try (LongestCollection collections = new LongestCollection()) {
				// The long critical section is the scenario: five leases of work.
				Thread.sleep(5_000);
				during = GcActivity.now().since(atStart);
				longestCollection = collections.millis();
			}
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
			long requested = collector.get(30, TimeUnit.SECONDS);
			logger.info(store + ": watchdog under GC pressure: " + (allocated >> 20) + " MB allocated, " + requested
					+ " full collections requested, " + during.collections() + " collections taking " + during.millis()
					+ " ms (the longest " + longestCollection
					+ " ms) during a 5000 ms section on a 1000 ms lease; lost locks: " + holder.lostLockCount());
			assertThat(holder.lostLockCount()).isZero();
			// The pressure is proven, not assumed: the collectors ran, and for a while.
			assertThat(during.collections()).isGreaterThanOrEqualTo(MIN_COLLECTIONS);
			assertThat(during.millis()).isGreaterThanOrEqualTo(MIN_GC_MILLIS);
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

	/**
	 * Allocates and drops 64 KB arrays, ordinary young objects, keeping the last 32 MB
	 * alive so that every collection has survivors to copy; bounded to 60 s.
	 */
	private static long churn(AtomicBoolean churning) {
		int size = 64 << 10;
		byte[][] live = new byte[512][];
		long allocated = 0;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		for (int i = 0; churning.get() && System.nanoTime() < deadline; i++) {
			live[i % live.length] = new byte[size];
			allocated += size;
		}
		return allocated;
	}

	/**
	 * Requests a full, stop-the-world collection every {@code period}, the pace of the
	 * fault: a heap this large collects its young objects too seldom to press on its own.
	 * Bounded to 60 s.
	 */
	private static long collectEvery(Duration period, AtomicBoolean churning) throws InterruptedException {
		long requested = 0;
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (churning.get() && System.nanoTime() < deadline) {
			System.gc();
			requested++;
			Thread.sleep(period.toMillis());
		}
		return requested;
	}

	/**
	 * What the JVM's garbage collectors did: how many collections, and the milliseconds
	 * they took, summed over every collector.
	 */
	private record GcActivity(long collections, long millis) {

		static GcActivity now() {
			long collections = 0;
			long millis = 0;
			for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
				collections += Math.max(0, collector.getCollectionCount());
				millis += Math.max(0, collector.getCollectionTime());
			}
			return new GcActivity(collections, millis);
		}

		GcActivity since(GcActivity earlier) {
			return new GcActivity(this.collections - earlier.collections, this.millis - earlier.millis);
		}

	}

	/**
	 * The longest single collection while it is open, from the collectors' notifications.
	 */
	private static final class LongestCollection implements NotificationListener, AutoCloseable {

		private final AtomicLong longestMillis = new AtomicLong();

		LongestCollection() {
			for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
				((NotificationEmitter) collector).addNotificationListener(this, null, null);
			}
		}

		@Override
		public void handleNotification(Notification notification, Object handback) {
			if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
				long millis = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData())
					.getGcInfo()
					.getDuration();
				this.longestMillis.accumulateAndGet(millis, Math::max);
			}
		}

		long millis() {
			return this.longestMillis.get();
		}

		@Override
		public void close() throws ListenerNotFoundException {
			for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
				((NotificationEmitter) collector).removeNotificationListener(this);
			}
		}

	}

}
