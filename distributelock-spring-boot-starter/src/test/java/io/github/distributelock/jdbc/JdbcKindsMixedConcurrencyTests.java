package io.github.distributelock.jdbc;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockEventListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Readers, writers and permit holders of two instances at once, on keys of both families
 * that alternate, so that each key's rows neighbour the other keys' rows in the indexes
 * of the lock table and of the holder and permit tables; with a watchdog lease short
 * enough that renewals run among the attempts and releases. On MariaDB and MySQL, whose
 * default isolation locks the gaps and next keys of an index, the statements of
 * neighbouring keys meet there: a caller must still see only a lock or "not acquired
 * within the wait", writers alone, readers never beside a writer, the permits never
 * exceeded, and no row left once every caller released. How many attempts raced another
 * statement (a deadlock, a duplicate first insert) and were made again is logged.
 */
class JdbcKindsMixedConcurrencyTests {

	private static final String TABLE = JdbcLockBackend.DEFAULT_TABLE_NAME;

	private static final Log logger = LogFactory.getLog(JdbcKindsMixedConcurrencyTests.class);

	private static final int INSTANCES = 2;

	private static final int THREADS_PER_INSTANCE = 4;

	/** Read/write keys are the even ones, permit keys the odd ones. */
	private static final int KEYS = 6;

	private static final int PERMITS = 2;

	private static final int ROUNDS = 80;

	/** How long the callers run at most, whatever rounds they have left. */
	private static final Duration RUN_FOR = Duration.ofSeconds(4);

	private static final Duration WAIT = Duration.ofMillis(800);

	/** Renewed every 500 ms: the longer holds are renewed. */
	private static final Duration WATCHDOG_LEASE = Duration.ofMillis(1500);

	private static final Duration LONGER_HOLD = Duration.ofMillis(600);

	@OnEachDatabase
	void readersWritersAndPermitHoldersOfTwoInstancesOnNeighbouringKeys(JdbcTestDatabase database) throws Exception {
		Callers callers = new Callers("mixed." + System.nanoTime() + ".");
		ListAppender<ILoggingEvent> races = capture(JdbcRacedAttempts.class.getName(), Level.DEBUG);
		ListAppender<ILoggingEvent> engine = capture("io.github.distributelock", null);
		List<HikariDataSource> pools = new ArrayList<>();
		List<DefaultDistributeLock> instances = new ArrayList<>();
		ExecutorService threads = Executors.newFixedThreadPool(INSTANCES * THREADS_PER_INSTANCE);
		try {
			for (int i = 0; i < INSTANCES; i++) {
				HikariDataSource pool = database.newDataSource((config) -> config.setMaximumPoolSize(8));
				pools.add(pool);
				// A lost lock fails its release, so that it reaches the caller.
				instances.add(new DefaultDistributeLock(new JdbcLockBackend(pool), WATCHDOG_LEASE, true,
						LockEventListener.NONE, null));
			}
			CyclicBarrier start = new CyclicBarrier(INSTANCES * THREADS_PER_INSTANCE);
			List<Future<?>> running = new ArrayList<>();
			for (DefaultDistributeLock lock : instances) {
				for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
					running.add(threads.submit(() -> {
						start.await(30, TimeUnit.SECONDS);
						long end = System.nanoTime() + RUN_FOR.toNanos();
						for (int round = 0; round < ROUNDS && System.nanoTime() - end < 0; round++) {
							callers.call(lock);
						}
						return null;
					}));
				}
			}
			for (Future<?> caller : running) {
				caller.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
			for (DefaultDistributeLock instance : instances) {
				instance.close();
			}
			for (HikariDataSource pool : pools) {
				pool.close();
			}
			stop(races, true);
			stop(engine, false);
		}
		long racedAgain = races.list.stream().filter((event) -> event.getMessage().contains("concurrent")).count();
		long lockWaitTimeouts = races.list.stream()
			.filter((event) -> event.getMessage().contains("lock-wait timeout"))
			.count();
		Set<String> outlasted = callers.outlastedTheLease;
		List<String> warned = engine.list.stream()
			.filter((event) -> event.getLevel().isGreaterOrEqual(Level.WARN))
			.map(ILoggingEvent::getFormattedMessage)
			.toList();
		List<String> warnings = warned.stream()
			.filter((warning) -> !(tellsOfALoss(warning) && outlasted.contains(quotedKey(warning))))
			.toList();
		logger.info(database + ": " + callers.acquired + " acquired, " + callers.refused + " not acquired within "
				+ WAIT.toMillis() + " ms (the longest of these returned after "
				+ TimeUnit.NANOSECONDS.toMillis(callers.longestRefusalNanos.get()) + " ms), " + callers.failures.size()
				+ " failed; attempts made again after racing a statement: " + racedAgain
				+ ", ended by the lock-wait timeout: " + lockWaitTimeouts + "; locks lost on a machine too busy to "
				+ "keep them within the lease: " + outlasted + "; warnings: " + warned);
		// A loaded machine may hold a lock past its lease, from the attempt to the end
		// of the release, before a renewal reaches the database: the lock is lost, as
		// it must be, and its holder, told too late, may overlap the next one of its
		// key. On a machine that keeps up, every hold ends well within the lease, and
		// any loss, overlap, warning or failure is a defect: a renewal or release that
		// failed, a lock the database dropped while its lease ran, a purge that failed.
		assertThat(callers.failures).as("failures that reached a caller").isEmpty();
		assertThat(callers.violations)
			.filteredOn((violation) -> !outlasted.contains(violation.substring(0, violation.indexOf(' '))))
			.as("holders at once, but of a key whose lock was held past its lease")
			.isEmpty();
		assertThat(warnings).as("warnings logged, but of locks held past their lease").isEmpty();
		assertThat(callers.acquired.get()).isPositive();
		String ours = callers.prefix + "%";
		for (String table : List.of(TABLE + "_q", TABLE + "_h", TABLE + "_p")) {
			assertThat(rows(database, table, "lock_key LIKE ?", ours)).as("rows left in %s", table).isZero();
		}
		assertThat(rows(database, TABLE, "lock_key LIKE ? AND expires_at > " + database.now(), ours))
			.as("keys left held")
			.isZero();
		try (HikariDataSource pool = database.newDataSource();
				JdbcLockBackend purging = new JdbcLockBackend(pool, TABLE, null, Clock.systemUTC(),
						Duration.ofMillis(1), true)) {
			purging.deleteReleasedRows();
		}
		assertThat(rows(database, TABLE, "lock_key LIKE ?", ours)).as("rows left in %s after the purge", TABLE)
			.isZero();
	}

	/** Whether a warning tells of a lost lock, or of the aftermath of its loss. */
	private static boolean tellsOfALoss(String warning) {
		return warning.contains(" was lost while held (") || warning.contains(" after it was reported lost");
	}

	/** The key a warning names first, between single quotes. */
	private static String quotedKey(String warning) {
		int start = warning.indexOf('\'') + 1;
		return warning.substring(start, warning.indexOf('\'', start));
	}

	/**
	 * Captures what {@code name} logs, at {@code level} if given (restored by
	 * {@link #stop}).
	 */
	private static ListAppender<ILoggingEvent> capture(String name, @Nullable Level level) {
		Logger captured = (Logger) LoggerFactory.getLogger(name);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.setName(name);
		appender.start();
		if (level != null) {
			captured.setLevel(level);
		}
		captured.addAppender(appender);
		return appender;
	}

	private static void stop(ListAppender<ILoggingEvent> appender, boolean levelSet) {
		Logger captured = (Logger) LoggerFactory.getLogger(appender.getName());
		captured.detachAppender(appender);
		if (levelSet) {
			captured.setLevel(null);
		}
		appender.stop();
	}

	private static int rows(JdbcTestDatabase database, String table, String where, Object... values) {
		Integer rows = database.jdbcTemplate()
			.queryForObject("SELECT COUNT(*) FROM " + table + " WHERE " + where, Integer.class, values);
		return (rows != null) ? rows : 0;
	}

	/**
	 * The callers' view: who is inside each key (counted outside the store), what reached
	 * them, and what broke the exclusion.
	 */
	private static final class Callers {

		private final String prefix;

		private final AtomicLongArray writers = new AtomicLongArray(KEYS);

		private final AtomicLongArray readers = new AtomicLongArray(KEYS);

		private final AtomicLongArray permitHolders = new AtomicLongArray(KEYS);

		private final List<String> violations = new CopyOnWriteArrayList<>();

		private final List<Throwable> failures = new CopyOnWriteArrayList<>();

		/**
		 * The keys of locks lost by a hold that lasted longer than the watchdog's lease,
		 * from the attempt to the end of its release.
		 */
		private final Set<String> outlastedTheLease = ConcurrentHashMap.newKeySet();

		private final AtomicInteger acquired = new AtomicInteger();

		private final AtomicInteger refused = new AtomicInteger();

		private final AtomicLong longestRefusalNanos = new AtomicLong();

		Callers(String prefix) {
			this.prefix = prefix;
		}

		/** One call of a random kind on a random key, and its work under the lock. */
		void call(DefaultDistributeLock lock) throws InterruptedException {
			ThreadLocalRandom random = ThreadLocalRandom.current();
			int key = random.nextInt(KEYS);
			LockMode mode = null;
			LockRequest request = LockRequest.of(this.prefix + key).withWaitTime(WAIT);
			if (key % 2 == 0) {
				mode = (random.nextInt(3) == 0) ? LockMode.WRITE : LockMode.READ;
				request = request.withMode(mode);
			}
			else {
				request = request.withPermits(PERMITS);
			}
			long asked = System.nanoTime();
			Optional<LockHandle> handle;
			try {
				handle = lock.tryAcquire(request);
			}
			catch (RuntimeException ex) {
				this.failures.add(ex);
				return;
			}
			if (handle.isEmpty()) {
				this.refused.incrementAndGet();
				this.longestRefusalNanos.accumulateAndGet(System.nanoTime() - asked, Math::max);
				return;
			}
			this.acquired.incrementAndGet();
			AtomicLongArray inside = (mode == null) ? this.permitHolders
					: (mode == LockMode.WRITE) ? this.writers : this.readers;
			try (LockHandle held = handle.get()) {
				inside.incrementAndGet(key);
				check(key, mode);
				// The work under the lock, not a wait for another thread: one hold in
				// ten outlasts a watchdog tick, so that renewals meet the other calls.
				long work = (random.nextInt(10) == 0) ? LONGER_HOLD.toMillis() : random.nextInt(3);
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(work));
				check(key, mode);
				inside.decrementAndGet(key);
			}
			catch (LockLostException ex) {
				if (System.nanoTime() - asked > WATCHDOG_LEASE.toNanos()) {
					this.outlastedTheLease.add(this.prefix + key);
				}
				else {
					this.failures.add(ex);
				}
			}
			catch (RuntimeException ex) {
				this.failures.add(ex);
			}
		}

		private void check(int key, @Nullable LockMode mode) {
			long writing = this.writers.get(key);
			long reading = this.readers.get(key);
			long permitted = this.permitHolders.get(key);
			if (writing > 1 || (writing > 0 && reading > 0) || permitted > PERMITS) {
				this.violations.add(this.prefix + key + " (" + ((mode != null) ? mode : "permits") + "): " + writing
						+ " writers, " + reading + " readers, " + permitted + " permit holders");
			}
		}

	}

}
