package io.github.distributelock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.Locks;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The store stopped while a lock is held and another caller waits for it: nobody hangs
 * past their deadline plus two store calls, the holder hears that its lock is lost, and
 * once the store is back the same lock objects acquire again, without a restart.
 * <p>
 * Why two store calls: a caller's last act before its deadline is an attempt at the
 * store, and when that attempt fails the engine also asks the store to release the key,
 * in case the store applied the attempt before failing to answer. With the store down
 * each of the two takes as long as the client's timeout, which the caller's wait time
 * cannot shorten.
 */
abstract class AbstractStoreOutageTests {

	private static final Log logger = LogFactory.getLog(AbstractStoreOutageTests.class);

	/** The watchdog lease of the locks under test. */
	protected static final Duration LEASE = Duration.ofSeconds(3);

	/** Room for a loaded machine's scheduling on top of the bounds the timeouts give. */
	private static final Duration SLACK = Duration.ofSeconds(2);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/** A new backend whose client gives up on a dead store within a few seconds. */
	protected abstract LockBackend newBackend() throws Exception;

	/**
	 * The longest one store call can take while the store is down, from the client
	 * timeouts {@link #newBackend()} configures.
	 */
	protected abstract Duration storeCallTimeout();

	protected abstract void stopStore() throws Exception;

	protected abstract void startStore() throws Exception;

	protected abstract String backendName();

	/** Registers something the test started, to be closed after it even on failure. */
	protected <T extends AutoCloseable> T closeAfter(T closeable) {
		return this.closeables.add(closeable);
	}

	private LockBackend newBackendClosedAfter() throws Exception {
		LockBackend backend = newBackend();
		if (backend instanceof AutoCloseable closeable) {
			closeAfter(closeable);
		}
		return backend;
	}

	private DefaultDistributeLock newLock(LockBackend backend) {
		return closeAfter(new DefaultDistributeLock(backend, LEASE, false, LockEventListener.NONE, null));
	}

	/** The bound on a caller with {@code wait}: its deadline, then two store calls. */
	private long boundMillis(Duration wait) {
		return wait.plus(storeCallTimeout().multipliedBy(2)).plus(SLACK).toMillis();
	}

	@Test
	void callersFailWithinTheirDeadlineWhileTheStoreIsDownAndAcquireAgainWhenItReturns() throws Exception {
		String key = "outage." + System.nanoTime();
		DefaultDistributeLock holderLock = newLock(newBackendClosedAfter());
		CountingLockBackend waiterBackend = CountingLockBackend.of(newBackendClosedAfter());
		DefaultDistributeLock waiterLock = newLock(waiterBackend);
		LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
		Duration waiterWait = Duration.ofSeconds(4);
		long waiterStart = System.nanoTime();
		CompletableFuture<Optional<LockHandle>> waiter = CompletableFuture
			.supplyAsync(() -> Locks.tryAcquire(waiterLock, key, waiterWait));
		CompletableFuture<Long> waiterEnd = waiter.handle((result, failure) -> System.nanoTime());
		// The waiter found the key held and waits for its release when the store stops.
		assertThat(waiterBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		long stopping = System.nanoTime();
		stopStore();
		long stopped = System.nanoTime();
		logger.info(backendName() + ": the store took " + millisSince(stopping) + " ms to stop");
		try {
			long started = System.nanoTime();
			assertThatExceptionOfType(DistributeLockException.class)
				.isThrownBy(() -> waiterLock.tryAcquire(key + ".fresh", Duration.ofSeconds(1), null))
				.withMessageContaining(key + ".fresh")
				.withMessageContaining(waiterBackend.name());
			long freshMillis = millisSince(started);
			logger.info(backendName() + ": a new caller failed " + freshMillis + " ms into an outage (wait 1000 ms)");
			assertThat(freshMillis).isLessThan(boundMillis(Duration.ofSeconds(1)));

			// Every backend ends a wait with an attempt at the store, and that attempt
			// fails while the store is down: the waiter hears of the outage, it does not
			// get an empty result as if the lock were only busy.
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> waiter.get(boundMillis(waiterWait) * 2, TimeUnit.MILLISECONDS))
				.havingCause()
				.isInstanceOf(DistributeLockException.class)
				.withMessageContaining(key)
				.withMessageContaining(waiterBackend.name());
			long waiterMillis = TimeUnit.NANOSECONDS.toMillis(waiterEnd.get() - waiterStart);
			logger.info(backendName() + ": a waiter (wait " + waiterWait.toMillis() + " ms) failed after "
					+ waiterMillis + " ms, " + TimeUnit.NANOSECONDS.toMillis(waiterEnd.get() - stopping)
					+ " ms after the store began to stop (one store call may take " + storeCallTimeout().toMillis()
					+ " ms)");
			assertThat(waiterMillis).isLessThan(boundMillis(waiterWait));

			// The lease runs out, or (ZooKeeper) Curator declares the session lost.
			await().atMost(Duration.ofMillis(boundMillis(LEASE))).until(() -> !held.isHeld());
			logger.info(backendName() + ": the holder heard of its loss " + millisSince(stopped)
					+ " ms after the store stopped (lease " + LEASE.toMillis() + " ms)");
			long releaseStart = System.nanoTime();
			// Releasing a lost lock still asks the store, in case it was not lost there:
			// with the store down that fails, within the client's timeout.
			assertThatExceptionOfType(DistributeLockException.class).isThrownBy(held::close);
			assertThat(millisSince(releaseStart)).isLessThan(storeCallTimeout().plus(SLACK).toMillis());
		}
		finally {
			startStore();
		}
		long recoveryStart = System.nanoTime();
		await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
			Optional<LockHandle> again = waiterLock.tryAcquire(key, Duration.ofSeconds(2), null);
			again.ifPresent(LockHandle::close);
			return again.isPresent();
		});
		logger.info(backendName() + ": locks acquired again " + millisSince(recoveryStart)
				+ " ms after the store restarted");
		try (LockHandle again = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow()) {
			assertThat(again.isHeld()).isTrue();
		}
	}

	/**
	 * Curator's {@code TestInterProcessSemaphore#testAcquireAfterLostServer} and
	 * Redisson's {@code RedissonLockTest#testRedisFailed}, for every kind: fair, read,
	 * write and permit locks held when the store stops are reported lost, are taken again
	 * once it is back, and the lost handles, closed late, free nothing of the new
	 * holders'.
	 */
	@Test
	void everyKindHeldWhenTheStoreStopsIsLostAndTakenAgainOnceItReturns() throws Exception {
		String key = "outage-kinds." + System.nanoTime();
		LockRequest fair = LockRequest.of(key + ".fair").withFair(true);
		LockRequest read = LockRequest.of(key + ".read").withMode(LockMode.READ);
		LockRequest write = LockRequest.of(key + ".write").withMode(LockMode.WRITE);
		LockRequest permit = LockRequest.of(key + ".permits").withPermits(1);
		List<LockRequest> kinds = List.of(fair, read, write, permit);
		DefaultDistributeLock holderLock = newLock(newBackendClosedAfter());
		List<LockHandle> lost = new ArrayList<>();
		for (LockRequest kind : kinds) {
			lost.add(holderLock.tryAcquire(kind.withWaitTime(Duration.ofSeconds(10))).orElseThrow());
		}
		stopStore();
		try {
			await().atMost(Duration.ofMillis(boundMillis(LEASE)))
				.until(() -> lost.stream().noneMatch(LockHandle::isHeld));
		}
		finally {
			startStore();
		}
		DefaultDistributeLock otherLock = newLock(newBackendClosedAfter());
		// A writer where the lost holder read, so that the lost reader would keep it out.
		List<LockRequest> exclusive = List.of(fair, read.withMode(LockMode.WRITE), write, permit);
		List<LockHandle> taken = new ArrayList<>();
		for (LockRequest kind : exclusive) {
			taken.add(await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
				Optional<LockHandle> again = otherLock.tryAcquire(kind.withWaitTime(Duration.ofSeconds(2)));
				return again.orElse(null);
			}, (handle) -> handle != null));
		}
		for (LockHandle handle : lost) {
			try {
				handle.close();
			}
			catch (DistributeLockException ex) {
				// The release of a lost lock asks the store, which may still be
				// reconnecting.
				logger.info(backendName() + ": closing a lost lock failed: " + ex.getMessage());
			}
		}
		DefaultDistributeLock thirdLock = newLock(newBackendClosedAfter());
		for (int i = 0; i < exclusive.size(); i++) {
			LockRequest kind = exclusive.get(i);
			assertThat(taken.get(i).isHeld()).as(kind.key()).isTrue();
			assertThat(thirdLock.tryAcquire(kind.withWaitTime(Duration.ofMillis(300)))).as(kind.key()).isEmpty();
			taken.get(i).close();
		}
		for (LockRequest kind : kinds) {
			try (LockHandle again = holderLock.tryAcquire(kind.withWaitTime(Duration.ofSeconds(10))).orElseThrow()) {
				assertThat(again.isHeld()).as(kind.key()).isTrue();
			}
		}
	}

	private static long millisSince(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
	}

}
