package io.github.distributelock.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The store stopped while a lock is held and another caller waits for it: nobody hangs
 * past their deadline plus one store timeout, the holder hears that its lock is lost, and
 * once the store is back the same lock objects acquire again, without a restart.
 */
abstract class AbstractStoreOutageTests {

	private static final Log logger = LogFactory.getLog(AbstractStoreOutageTests.class);

	/** The watchdog lease of the locks under test. */
	protected static final Duration LEASE = Duration.ofSeconds(3);

	/**
	 * How long one store call may take when the store is down: the client timeouts each
	 * subclass configures, with room for a loaded machine.
	 */
	protected static final Duration STORE_TIMEOUT = Duration.ofSeconds(10);

	private final List<AutoCloseable> closeables = new ArrayList<>();

	/** A new backend whose client gives up on a dead store within a few seconds. */
	protected abstract LockBackend newBackend() throws Exception;

	protected abstract void stopStore() throws Exception;

	protected abstract void startStore() throws Exception;

	protected abstract String backendName();

	@AfterEach
	void closeAll() throws Exception {
		Exception failure = null;
		for (int i = this.closeables.size() - 1; i >= 0; i--) {
			try {
				this.closeables.get(i).close();
			}
			catch (Exception ex) {
				failure = (failure != null) ? failure : ex;
			}
		}
		this.closeables.clear();
		if (failure != null) {
			throw failure;
		}
	}

	/** Registers something the test started, to be closed after it even on failure. */
	protected <T extends AutoCloseable> T closeAfter(T closeable) {
		this.closeables.add(closeable);
		return closeable;
	}

	private DefaultDistributeLock newLock() throws Exception {
		LockBackend backend = newBackend();
		if (backend instanceof AutoCloseable closeable) {
			closeAfter(closeable);
		}
		return closeAfter(new DefaultDistributeLock(backend, LEASE, false, LockEventListener.NONE, null));
	}

	@Test
	void callersFailWithinTheirDeadlineWhileTheStoreIsDownAndAcquireAgainWhenItReturns() throws Exception {
		String key = "outage." + System.nanoTime();
		DefaultDistributeLock holderLock = newLock();
		DefaultDistributeLock waiterLock = newLock();
		LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
		Duration waiterWait = Duration.ofSeconds(4);
		CompletableFuture<Optional<LockHandle>> waiter = CompletableFuture
			.supplyAsync(() -> acquire(waiterLock, key, waiterWait));
		long waiterStart = System.nanoTime();
		stopStore();
		long stopped = System.nanoTime();
		try {
			long started = System.nanoTime();
			assertThatExceptionOfType(DistributeLockException.class)
				.isThrownBy(() -> waiterLock.tryAcquire(key + ".fresh", Duration.ofSeconds(1), null));
			long freshMillis = millisSince(started);
			logger.info(backendName() + ": a new caller failed " + freshMillis + " ms into an outage (wait 1000 ms)");
			assertThat(freshMillis).isLessThan(1000 + STORE_TIMEOUT.toMillis());

			Object waiterOutcome;
			try {
				waiterOutcome = waiter.get(waiterWait.plus(STORE_TIMEOUT).toMillis() * 2, TimeUnit.MILLISECONDS);
			}
			catch (ExecutionException ex) {
				waiterOutcome = ex.getCause();
			}
			long waiterMillis = millisSince(waiterStart);
			logger.info(backendName() + ": a waiter (wait " + waiterWait.toMillis() + " ms) returned " + waiterOutcome
					+ " after " + waiterMillis + " ms");
			assertThat(waiterOutcome).isInstanceOfAny(DistributeLockException.class, Optional.class);
			if (waiterOutcome instanceof Optional<?> acquired) {
				assertThat(acquired).isEmpty();
			}
			assertThat(waiterMillis).isLessThan(waiterWait.plus(STORE_TIMEOUT).toMillis());

			await().atMost(LEASE.plus(STORE_TIMEOUT).multipliedBy(2)).until(() -> !held.isHeld());
			logger.info(backendName() + ": the holder heard of its loss " + millisSince(stopped)
					+ " ms after the store stopped (lease " + LEASE.toMillis() + " ms)");
			long releaseStart = System.nanoTime();
			// Releasing a lost lock still asks the store, in case it was not lost there:
			// with the store down that fails, within the client's timeout.
			assertThatExceptionOfType(DistributeLockException.class).isThrownBy(held::close);
			assertThat(millisSince(releaseStart)).isLessThan(STORE_TIMEOUT.toMillis());
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

	private static Optional<LockHandle> acquire(DefaultDistributeLock lock, String key, Duration wait) {
		try {
			return lock.tryAcquire(key, wait, null);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static long millisSince(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
	}

}
