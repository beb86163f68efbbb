package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Where and when {@link LockHandle#onLost} listeners run: on the lock service's
 * {@value LostListenerThread#NAME} thread, in the order a handle's were registered, never
 * on the scheduler that keeps the leases of the other locks.
 */
@ExtendWith(OutputCaptureExtension.class)
class LostListenerThreadTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final AtomicInteger renewals = new AtomicInteger();

	private DefaultDistributeLock newLock(Duration watchdogLease) {
		LockEventListener countsRenewals = (key, name, backend) -> new LockTracker() {

			@Override
			public void renewed() {
				LostListenerThreadTests.this.renewals.incrementAndGet();
			}

		};
		return this.closeables
			.add(new DefaultDistributeLock(new MemoryLockBackend(), watchdogLease, false, countsRenewals, null));
	}

	@Test
	void slowListenersOfExpiredFixedLeasesDoNotKeepTheWatchdogFromRenewingOtherLocks() throws Exception {
		// A lease long enough not to run out between two renewals on a loaded machine;
		// a watchdog held up by the listeners renews nothing at all.
		DefaultDistributeLock lock = newLock(Duration.ofSeconds(2));
		LockHandle healthy = lock.tryAcquire("lost.thread.healthy", Duration.ZERO, null).orElseThrow();
		CountDownLatch listening = new CountDownLatch(1);
		CountDownLatch alertSent = new CountDownLatch(1);
		for (String key : List.of("lost.thread.a", "lost.thread.b")) {
			lock.tryAcquire(key, Duration.ZERO, Duration.ofMillis(50)).orElseThrow().onLost((lost) -> {
				// Stands for a slow alert sent over HTTP, until the test lets it go.
				listening.countDown();
				awaitQuietly(alertSent);
			});
		}
		try {
			assertThat(listening.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
			int renewalsBefore = this.renewals.get();
			await().atMost(BOUND).until(() -> this.renewals.get() >= renewalsBefore + 3);
			assertThat(healthy.isHeld()).isTrue();
		}
		finally {
			alertSent.countDown();
		}
		healthy.close();
		assertThat(lock.lostLockCount()).isEqualTo(2);
	}

	@Test
	void listenersRunOnTheLostListenersThreadInTheOrderTheyWereRegistered(CapturedOutput output) throws Exception {
		DefaultDistributeLock lock = newLock(DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE);
		LockHandle handle = lock.tryAcquire("lost.thread.order", Duration.ZERO, Duration.ofMillis(50)).orElseThrow();
		List<String> told = new CopyOnWriteArrayList<>();
		handle.onLost((lost) -> told.add("first on " + Thread.currentThread().getName()));
		handle.onLost((lost) -> {
			told.add("second");
			throw new IllegalStateException("the alert service is down");
		});
		handle.onLost((lost) -> told.add("third"));
		await().atMost(BOUND).until(() -> told.size() == 3);
		// Registered once the lock is lost already: told on that thread too, not on this.
		handle.onLost((lost) -> told.add("late on " + Thread.currentThread().getName()));
		await().atMost(BOUND).until(() -> told.size() == 4);
		assertThat(told).containsExactly("first on " + LostListenerThread.NAME, "second", "third",
				"late on " + LostListenerThread.NAME);
		assertThat(output).contains("Lost-lock listener for 'lost.thread.order' failed", "the alert service is down");
		handle.close();
	}

	@Test
	void aMultiKeyHandlesListenerRunsOnTheLostListenersThreadOnce() throws Exception {
		DefaultDistributeLock lock = newLock(DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE);
		LockHandle handle = lock
			.tryAcquire(LockRequest.all(LockRequest.of("lost.thread.multi.a"), LockRequest.of("lost.thread.multi.b"))
				.withLeaseTime(Duration.ofMillis(50)))
			.orElseThrow();
		List<String> told = new CopyOnWriteArrayList<>();
		handle.onLost((lost) -> told.add(lost.key() + " on " + Thread.currentThread().getName()));
		await().atMost(BOUND).until(() -> !handle.isHeld() && lock.lostLockCount() == 2);
		await().atMost(BOUND).until(() -> !told.isEmpty());
		handle.close();
		assertThat(told).containsExactly(handle.key() + " on " + LostListenerThread.NAME);
	}

	@Test
	void notificationsGivenBeforeTheLockServiceClosedRunAndLaterOnesRunOnAThreadOfTheirOwn() throws Exception {
		LostListenerThread thread = new LostListenerThread();
		CountDownLatch firstRuns = new CountDownLatch(1);
		CountDownLatch closed = new CountDownLatch(1);
		List<String> told = new CopyOnWriteArrayList<>();
		thread.execute(() -> {
			firstRuns.countDown();
			awaitQuietly(closed);
			told.add("first");
		});
		thread.execute(() -> told.add("queued"));
		assertThat(firstRuns.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
		thread.shutDown();
		closed.countDown();
		CompletableFuture<String> late = new CompletableFuture<>();
		thread.execute(() -> late.complete(Thread.currentThread().getName()));
		assertThat(late.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isEqualTo(LostListenerThread.NAME);
		await().atMost(BOUND).until(() -> told.size() == 2);
		assertThat(told).containsExactly("first", "queued");
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(BOUND.toSeconds(), TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
