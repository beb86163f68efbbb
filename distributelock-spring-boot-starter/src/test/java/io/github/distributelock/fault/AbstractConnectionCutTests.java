package io.github.distributelock.fault;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.Closeables;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.LogLines;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.Locks;
import io.github.distributelock.core.LockTracker;
import io.github.distributelock.core.SessionLockBackend;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A holder whose connection to the store goes through a {@link TcpProxy} that cuts it or
 * blackholes it: for longer than the lease, the holder hears that its lock is lost and
 * another client takes it; for a moment shorter than the lease, the lock is kept.
 */
abstract class AbstractConnectionCutTests {

	private static final Log logger = LogFactory.getLog(AbstractConnectionCutTests.class);

	/** The watchdog lease, or the ZooKeeper session timeout. */
	protected static final Duration LEASE = Duration.ofSeconds(3);

	/**
	 * A silent partition shorter than the lease and than the clients' timeouts, and
	 * longer than the watchdog's renewal period (a third of the lease), so that it holds
	 * back a renewal.
	 */
	protected static final Duration SHORT_BLACKHOLE = LEASE.dividedBy(2);

	@RegisterExtension
	final Closeables closeables = new Closeables();

	/**
	 * A backend that reaches the store on {@code port}, with client timeouts below the
	 * lease and above {@link #SHORT_BLACKHOLE}.
	 */
	protected abstract LockBackend newBackend(int port) throws Exception;

	/**
	 * A backend like {@link #newBackend(int)} whose locks last far longer than the test:
	 * ZooKeeper's session is its lease, so it needs a longer one.
	 */
	protected LockBackend newLongLeaseBackend(int port) throws Exception {
		return newBackend(port);
	}

	protected abstract int storePort();

	/** Whether the store itself holds the lock of {@code key}, read without the proxy. */
	protected abstract boolean isLocked(String key) throws Exception;

	protected abstract String backendName();

	protected <T extends AutoCloseable> T closeAfter(T closeable) {
		return this.closeables.add(closeable);
	}

	private DefaultDistributeLock newLock(int port) throws Exception {
		return closeAfter(
				new DefaultDistributeLock(newBackendClosedAfter(port), LEASE, false, LockEventListener.NONE, null));
	}

	private LockBackend newBackendClosedAfter(int port) throws Exception {
		return newBackendClosedAfter(port, false);
	}

	private LockBackend newBackendClosedAfter(int port, boolean longLease) throws Exception {
		LockBackend backend = longLease ? newLongLeaseBackend(port) : newBackend(port);
		if (backend instanceof AutoCloseable closeable) {
			closeAfter(closeable);
		}
		return backend;
	}

	@Test
	void cutLongerThanTheLeaseReportsTheLossAndLetsAnotherClientTakeTheLock() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock holderLock = newLock(proxy.port());
		DefaultDistributeLock otherLock = newLock(storePort());
		String key = "cut-long." + System.nanoTime();
		LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
		proxy.cut();
		long cut = System.nanoTime();
		await().atMost(LEASE.plusSeconds(20)).until(() -> !held.isHeld());
		long lossMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
		logger.info(backendName() + ": holder cut off reported its loss after " + lossMillis + " ms (lease "
				+ LEASE.toMillis() + " ms)");
		try (LockHandle taken = otherLock.tryAcquire(key, LEASE.plusSeconds(20), null).orElseThrow()) {
			logger.info(backendName() + ": another client took the lock "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut) + " ms after the cut");
			assertThat(taken.isHeld()).isTrue();
			proxy.restore();
			releaseLostLockLeavesNewHolderAlone(key, held, taken);
		}
	}

	@Test
	void cutShorterThanTheLeaseKeepsTheLock() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock holderLock = newLock(proxy.port());
		String key = "cut-short." + System.nanoTime();
		try (LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow()) {
			proxy.cut();
			// The partition is the scenario: a third of the lease.
			Thread.sleep(LEASE.toMillis() / 3);
			proxy.restore();
			// Two more leases pass, so the lock survives only if it was renewed.
			Thread.sleep(LEASE.toMillis() * 2);
			assertThat(held.isHeld()).isTrue();
			assertThat(isLocked(key)).isTrue();
		}
		assertThat(isLocked(key)).isFalse();
	}

	@Test
	void latencyOfAFifteenthOfTheLeaseEachWayKeepsTheLockThroughRenewals() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock holderLock = newLock(proxy.port());
		DefaultDistributeLock otherLock = newLock(storePort());
		String key = "latency." + System.nanoTime();
		Duration latency = LEASE.dividedBy(15);
		try (LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow()) {
			proxy.latency(latency);
			// Renewals, every third of the lease, each take a slow round trip on the
			// established connection; the lock must stay held, and exclusive, for longer
			// than one lease.
			await().during(LEASE.multipliedBy(3).dividedBy(2))
				.atMost(LEASE.multipliedBy(3))
				.until(() -> held.isHeld() && isLocked(key));
			assertThat(otherLock.tryAcquire(key, Duration.ZERO, null)).isEmpty();
			assertThat(holderLock.lostLockCount()).isZero();
			long start = System.nanoTime();
			held.close();
			logger.info(backendName() + ": released through " + latency.toMillis() + " ms of latency each way in "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms");
		}
		assertThat(isLocked(key)).isFalse();
	}

	@Test
	void blackholeLongerThanTheLeaseReportsTheLossAndLetsAnotherClientTakeTheLock() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock holderLock = newLock(proxy.port());
		DefaultDistributeLock otherLock = newLock(storePort());
		String key = "blackhole-long." + System.nanoTime();
		LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
		CountDownLatch lost = new CountDownLatch(1);
		held.onLost((handle) -> lost.countDown());
		proxy.blackhole();
		long start = System.nanoTime();
		try {
			CompletableFuture<Takeover> other = CompletableFuture.supplyAsync(() -> {
				LockHandle taken = Locks.tryAcquire(otherLock, key, LEASE.plusSeconds(20)).orElseThrow();
				return new Takeover(taken, millisSince(start), held.isHeld());
			});
			// Nothing fails fast: the holder's store calls time out, one client timeout
			// each, and the loss is reported by the watchdog (or Curator) on its own.
			assertThat(lost.await(LEASE.plusSeconds(20).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
			long lossMillis = millisSince(start);
			assertThat(held.isHeld()).isFalse();
			assertThat(holderLock.lostLockCount()).isOne();
			Takeover takeover = other.get(LEASE.plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
			try (LockHandle taken = takeover.handle()) {
				logger.info(backendName() + ": behind a blackhole the holder reported its loss after " + lossMillis
						+ " ms, another client took the lock after " + takeover.millis() + " ms (lease "
						+ LEASE.toMillis() + " ms); the holder's handle then said held: " + takeover.holderStillHeld());
				assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
				if (!(holderLock.backend() instanceof SessionLockBackend)) {
					// The holder counts its lease from before its last renewal was sent,
					// the store from when it ran it: the holder stops believing first.
					assertThat(takeover.holderStillHeld()).isFalse();
				}
				// What the holder sent into the blackhole arrives now, late: none of it
				// may touch the new holder's lock, and neither may its release.
				proxy.heal();
				releaseLostLockLeavesNewHolderAlone(key, held, taken);
			}
		}
		finally {
			proxy.heal();
		}
		assertThat(isLocked(key)).isFalse();
	}

	/**
	 * Releases a lock its holder lost once its connection is back: the holder's client
	 * may not have reconnected yet, so its release may fail within the client's timeout,
	 * and either way it must leave the new holder's lock in place.
	 */
	private void releaseLostLockLeavesNewHolderAlone(String key, LockHandle lost, LockHandle taken) throws Exception {
		try {
			lost.close();
		}
		catch (DistributeLockException ex) {
			logger.info(backendName() + ": release of the lost lock failed: " + ex.getMessage());
		}
		assertThat(isLocked(key)).isTrue();
		assertThat(taken.isHeld()).isTrue();
	}

	/**
	 * A release that hits a dead connection (a failover, a reset) must not leave the lock
	 * in the store for its whole lease: the caller hears of it at once, and the release
	 * is retried in the background until the store answers.
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void releaseThatFailsWhileCutIsRetriedInTheBackgroundAndFreesTheKeyLongBeforeItsLease(CapturedOutput output)
			throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		Duration longLease = Duration.ofSeconds(60);
		AtomicInteger failedReleases = new AtomicInteger();
		LockEventListener countingFailedReleases = (lockKey, name, store) -> new LockTracker() {
			@Override
			public void releaseFailed(Throwable failure) {
				failedReleases.incrementAndGet();
			}
		};
		DefaultDistributeLock holderLock = longLeaseLock(proxy, longLease, countingFailedReleases);
		String key = "release-retried." + System.nanoTime();
		LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
		proxy.cut();
		long cut = System.nanoTime();
		assertThatExceptionOfType(DistributeLockException.class).isThrownBy(held::close).withMessageContaining(key);
		long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
		assertThat(isLocked(key)).isTrue();
		proxy.restore();
		await().atMost(Duration.ofSeconds(20)).until(() -> !isLocked(key));
		long freedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cut);
		logger.info(backendName() + ": close() failed after " + closeMillis + " ms on a cut connection; the "
				+ "background retry freed the key " + freedMillis + " ms after the cut (lease " + longLease.toMillis()
				+ " ms)");
		assertThat(freedMillis).isLessThan(longLease.toMillis());
		// Told once, however many retries it took: one WARN line and one counted failure.
		assertThat(failedReleases).hasValue(1);
		assertThat(LogLines.containing(output, "Could not release lock '" + key + "'")).hasSize(1)
			.allSatisfy((line) -> assertThat(line).contains("retrying in the background"));
	}

	/**
	 * Closing the lock service while its store is cut off: the release of each held lock
	 * goes unanswered, or fails after the client's timeout, and so does the last attempt
	 * of a release then retried. They are sent side by side and waited for at most 5 s,
	 * so the close ends in the same time however many locks were held; one at a time, a
	 * client timeout per lock would hold up the application's shutdown for minutes with a
	 * few hundred locks held (ZooKeeper's client waits out two thirds of its session
	 * timeout per call).
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void closingTheLockServiceWhileCutOffEndsWithinItsBoundWhateverTheLocksHeld(CapturedOutput output)
			throws Exception {
		Duration closing = closeWhileCutOff(8);
		logger.info(backendName() + ": close() cut off from the store took " + closing.toMillis()
				+ " ms with eight locks held");
		// The 5 s of the releases and their retries, with room for a loaded machine.
		assertThat(closing).isLessThan(Duration.ofSeconds(9));
		assertThat(output.getOut() + output.getErr()).containsAnyOf("at shutdown");
	}

	private Duration closeWhileCutOff(int locks) throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock holderLock = longLeaseLock(proxy, Duration.ofSeconds(60), LockEventListener.NONE);
		String prefix = "close-cut-off." + System.nanoTime() + ".";
		for (int i = 0; i < locks; i++) {
			holderLock.tryAcquire(prefix + i, Duration.ofSeconds(10), null).orElseThrow();
		}
		proxy.blackhole();
		long started = System.nanoTime();
		holderLock.close();
		Duration closing = Duration.ofNanos(System.nanoTime() - started);
		proxy.close();
		return closing;
	}

	/**
	 * A lock service through {@code proxy} whose locks outlive the test, closed after it.
	 */
	private DefaultDistributeLock longLeaseLock(TcpProxy proxy, Duration lease, LockEventListener events)
			throws Exception {
		LockBackend backend = newLongLeaseBackend(proxy.port());
		if (backend instanceof AutoCloseable closeable) {
			closeAfter(closeable);
		}
		return closeAfter(new DefaultDistributeLock(backend, lease, false, events, null));
	}

	/**
	 * A hand-over to the next caller of the same instance that fails on a cut connection
	 * is told to the holder once, like a failed release, and the holder's release is
	 * retried in the background; the waiter, whose attempt it was, gives back what it may
	 * have been handed and tries again, and gets the lock once the store is back.
	 */
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void handOverThatFailsWhileCutIsToldOnceAndTheWaiterGetsTheLockOnceTheStoreIsBack(CapturedOutput output)
			throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		DefaultDistributeLock lock = longLeaseLock(proxy, Duration.ofSeconds(60), LockEventListener.NONE);
		String key = "hand-over-cut." + System.nanoTime();
		LockHandle held = lock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = CompletableFuture
			.supplyAsync(() -> Locks.tryAcquire(lock, key, Duration.ofSeconds(40)));
		Locks.awaitWaitingAtGate(lock, key, 1);
		proxy.cut();
		assertThatExceptionOfType(DistributeLockException.class).isThrownBy(held::close).withMessageContaining(key);
		assertThat(isLocked(key)).isTrue();
		proxy.restore();
		LockHandle next = waiting.get(45, TimeUnit.SECONDS).orElseThrow();
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(isLocked(key)).isTrue();
		next.close();
		await().atMost(Duration.ofSeconds(20)).until(() -> !isLocked(key));
		assertThat(LogLines.containing(output, "Could not release lock '" + key + "'")).hasSize(1)
			.allSatisfy((line) -> assertThat(line).contains("retrying in the background"));
	}

	/**
	 * An interrupt that reaches a caller stuck in a store call (here: a silent partition,
	 * so the call lasts until the client's timeout) ends the call with
	 * {@link InterruptedException}, not a store failure, so that cancellation can be told
	 * from an outage; the flag is cleared as the JDK does, and nothing is left in the
	 * store once it can be reached again.
	 */
	@Test
	void callerInterruptedInAStoreCallDuringAPartitionGetsInterruptedExceptionAndLeavesNothing() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		CountingLockBackend callerBackend = CountingLockBackend.of(newBackendClosedAfter(proxy.port()));
		// A lease far longer than the wait below, so that only the give-back can free the
		// key in time if the interrupted attempt took it.
		Duration longLease = Duration.ofSeconds(60);
		DefaultDistributeLock callerLock = closeAfter(
				new DefaultDistributeLock(callerBackend, longLease, false, LockEventListener.NONE, null));
		String key = "partition-interrupt." + System.nanoTime();
		// Opens the connections through the proxy first, so the call below waits on one.
		callerLock.tryAcquire(key + ".warm-up", Duration.ofSeconds(10), null).orElseThrow().close();
		int attemptsBefore = callerBackend.acquireAttempts.get();
		proxy.blackhole();
		try {
			AtomicReference<Thread> callerThread = new AtomicReference<>();
			CompletableFuture<List<Object>> caller = CompletableFuture.supplyAsync(() -> {
				callerThread.set(Thread.currentThread());
				try {
					return List.of(callerLock.tryAcquire(key, Duration.ofSeconds(30), null));
				}
				catch (InterruptedException | RuntimeException ex) {
					return List.of(ex, Thread.currentThread().isInterrupted());
				}
			});
			await().atMost(Duration.ofSeconds(10)).until(() -> callerBackend.acquireAttempts.get() > attemptsBefore);
			long interrupted = System.nanoTime();
			callerThread.get().interrupt();
			List<Object> outcome = caller.get(30, TimeUnit.SECONDS);
			logger.info(backendName() + ": a caller interrupted in a store call during a partition ended after "
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - interrupted) + " ms with " + outcome.get(0));
			assertThat(outcome).hasSize(2);
			assertThat(outcome.get(0)).isInstanceOf(InterruptedException.class);
			assertThat(((Throwable) outcome.get(0)).getMessage()).contains(key);
			assertThat(outcome.get(1)).isEqualTo(false);
		}
		finally {
			proxy.heal();
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> !isLocked(key));
		assertHeldOnceThePartitionsLossIsReported(callerLock, LockRequest.of(key));
	}

	/**
	 * A caller interrupted while its release waits for a slow store still releases: the
	 * key is free when {@code close()} returns, and the caller keeps its interrupt.
	 */
	@Test
	void callerInterruptedWhileItsReleaseWaitsForASlowStoreReleasesAndKeepsItsInterrupt() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		CountingLockBackend callerBackend = CountingLockBackend.of(newBackendClosedAfter(proxy.port()));
		DefaultDistributeLock callerLock = closeAfter(
				new DefaultDistributeLock(callerBackend, Duration.ofSeconds(60), false, LockEventListener.NONE, null));
		String key = "release-interrupt." + System.nanoTime();
		LockHandle held = callerLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow();
		int releasesBefore = callerBackend.releases.get();
		proxy.latency(Duration.ofMillis(300));
		AtomicReference<Thread> callerThread = new AtomicReference<>();
		CompletableFuture<Boolean> closed = CompletableFuture.supplyAsync(() -> {
			callerThread.set(Thread.currentThread());
			held.close();
			return Thread.interrupted();
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> callerBackend.releases.get() > releasesBefore);
		callerThread.get().interrupt();
		assertThat(closed.get(30, TimeUnit.SECONDS)).as("the caller's interrupt, kept").isTrue();
		assertThat(isLocked(key)).isFalse();
		assertThat(held.isHeld()).isFalse();
	}

	/**
	 * {@link #callerInterruptedInAStoreCallDuringAPartitionGetsInterruptedExceptionAndLeavesNothing}
	 * for a multi-key request, whose keys the backend may take in one call.
	 */
	@Test
	void multiKeyCallerInterruptedInAStoreCallDuringAPartitionGetsInterruptedExceptionAndLeavesNothing()
			throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		CountingLockBackend callerBackend = CountingLockBackend.of(newBackendClosedAfter(proxy.port()));
		DefaultDistributeLock callerLock = closeAfter(
				new DefaultDistributeLock(callerBackend, Duration.ofSeconds(60), false, LockEventListener.NONE, null));
		String key = "partition-interrupt-multi." + System.nanoTime();
		LockRequest both = LockRequest.all(LockRequest.of(key + ".a"), LockRequest.of(key + ".b"));
		callerLock.tryAcquire(LockRequest.all(LockRequest.of(key + ".warm-up")).withWaitTime(Duration.ofSeconds(10)))
			.orElseThrow()
			.close();
		int attemptsBefore = callerBackend.acquireAttempts.get() + callerBackend.acquireAllAttempts.get();
		proxy.blackhole();
		try {
			AtomicReference<Thread> callerThread = new AtomicReference<>();
			CompletableFuture<Object> caller = CompletableFuture.supplyAsync(() -> {
				callerThread.set(Thread.currentThread());
				try {
					return callerLock.tryAcquire(both.withWaitTime(Duration.ofSeconds(30)));
				}
				catch (InterruptedException | RuntimeException ex) {
					return ex;
				}
			});
			await().atMost(Duration.ofSeconds(10))
				.until(() -> callerBackend.acquireAttempts.get()
						+ callerBackend.acquireAllAttempts.get() > attemptsBefore);
			callerThread.get().interrupt();
			Object outcome = caller.get(30, TimeUnit.SECONDS);
			assertThat(outcome).isInstanceOf(InterruptedException.class);
			assertThat(((Throwable) outcome).getMessage()).contains(key);
		}
		finally {
			proxy.heal();
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> !isLocked(key + ".a") && !isLocked(key + ".b"));
		assertHeldOnceThePartitionsLossIsReported(callerLock, both);
	}

	/**
	 * Takes {@code request} again after a partition and asserts it held. On a backend
	 * that reports session losses ({@link SessionLockBackend}) it is taken again until
	 * held: a lock taken while the store still reports the partition's session lost (on
	 * ZooKeeper, when the client hears of the expiry only as it reconnects, Curator tells
	 * it on its connection-state thread a moment later) is reported lost at once, by
	 * design, as the engine cannot tell which session a late report is about; taken again
	 * once that report has passed, it is held.
	 */
	private void assertHeldOnceThePartitionsLossIsReported(DefaultDistributeLock lock, LockRequest request)
			throws Exception {
		Duration wait = LEASE.plusSeconds(20);
		if (!(lock.backend() instanceof SessionLockBackend)) {
			try (LockHandle again = lock.tryAcquire(request.withWaitTime(wait)).orElseThrow()) {
				assertThat(again.isHeld()).isTrue();
			}
			return;
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			try (LockHandle again = lock.tryAcquire(request.withWaitTime(wait)).orElseThrow()) {
				return again.isHeld();
			}
		});
	}

	/**
	 * A multi-key attempt that the store applied but whose answer the client never got (a
	 * timeout, a dropped connection) took every key in the store: the attempt is given
	 * back before it is tried again, or the next attempt would find the keys held, by
	 * nobody who ever releases them, until their lease (here a minute) or the session
	 * ended.
	 */
	@Test
	void multiKeyAttemptWhoseAnswerIsLostIsGivenBackBeforeItIsTriedAgain() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		CountingLockBackend backend = CountingLockBackend.of(newBackendClosedAfter(proxy.port(), true));
		String key = "answer-lost-multi." + System.nanoTime();
		String a = key + ".a";
		String b = key + ".b";
		// A backend that takes the keys one after the other overrides this test, saying
		// why.
		assertThat(backend.batches(List.of(new LockBackend.Claim(a, "o"), new LockBackend.Claim(b, "o"))))
			.as("the backend takes the keys in one batch")
			.isTrue();
		DefaultDistributeLock lock = closeAfter(
				new DefaultDistributeLock(backend, Duration.ofSeconds(60), false, LockEventListener.NONE, null));
		// Opens the connections through the proxy first.
		lock.tryAcquire(LockRequest.all(LockRequest.of(key + ".warm-up-a"), LockRequest.of(key + ".warm-up-b")))
			.orElseThrow()
			.close();
		proxy.latency(answerLatency());
		CompletableFuture<LockHandle> caller = CompletableFuture.supplyAsync(() -> {
			try {
				return lock
					.tryAcquire(
							LockRequest.all(LockRequest.of(a), LockRequest.of(b)).withWaitTime(Duration.ofSeconds(30)))
					.orElseThrow();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		});
		try {
			await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() -> isLocked(a));
			loseTheAnswer(proxy, backend);
			try (LockHandle both = caller.get(40, TimeUnit.SECONDS)) {
				assertThat(backend.acquireAllFailures.get()).isPositive();
				assertThat(both.isHeld() && isLocked(a) && isLocked(b)).isTrue();
				logger.info(backendName() + ": a multi-key attempt whose answer was lost was given back and taken "
						+ "again in " + (backend.acquireAllAttempts.get() - 1) + " attempts");
			}
		}
		finally {
			proxy.latency(Duration.ZERO);
			proxy.restore();
		}
		assertThat(isLocked(a) || isLocked(b)).isFalse();
	}

	/**
	 * The latency each way that delays the answer of the multi-key attempt in
	 * {@link #multiKeyAttemptWhoseAnswerIsLostIsGivenBackBeforeItIsTriedAgain}.
	 */
	protected Duration answerLatency() {
		return Duration.ofSeconds(1);
	}

	/**
	 * Makes the answer of the attempt in flight, already applied by the store and slowed
	 * by {@link #answerLatency()}, fail on the client, and lets the traffic flow again.
	 */
	protected void loseTheAnswer(TcpProxy proxy, CountingLockBackend backend) {
		proxy.cut();
		proxy.latency(Duration.ZERO);
		proxy.restore();
	}

	@Test
	void blackholeShorterThanTheLeaseKeepsTheLock() throws Exception {
		TcpProxy proxy = closeAfter(TcpProxy.start(storePort()));
		CountingLockBackend holderBackend = CountingLockBackend.of(newBackendClosedAfter(proxy.port()));
		AtomicInteger renewed = new AtomicInteger();
		DefaultDistributeLock holderLock = closeAfter(
				new DefaultDistributeLock(holderBackend, LEASE, false, (lockKey, name, backend) -> new LockTracker() {

					@Override
					public void renewed() {
						renewed.incrementAndGet();
					}

				}, null));
		String key = "blackhole-short." + System.nanoTime();
		try (LockHandle held = holderLock.tryAcquire(key, Duration.ofSeconds(10), null).orElseThrow()) {
			boolean renews = holderBackend.leasesExpire();
			if (renews) {
				// Begin just after a renewal was answered, so that the next one, a third
				// of the lease later, is sent into the blackhole.
				await().atMost(LEASE.multipliedBy(2)).pollInterval(Duration.ofMillis(5)).until(() -> renewed.get() > 0);
			}
			int renewalsBefore = holderBackend.renewals.get();
			proxy.blackhole();
			try {
				// The silent partition is the scenario.
				Thread.sleep(SHORT_BLACKHOLE.toMillis());
			}
			finally {
				proxy.heal();
			}
			if (renews) {
				assertThat(holderBackend.renewals.get()).isGreaterThan(renewalsBefore);
			}
			// The renewal held back is answered late, not failed; two more leases pass,
			// so the lock survives only if it goes on being renewed.
			await().during(LEASE.multipliedBy(2))
				.atMost(LEASE.multipliedBy(3))
				.until(() -> held.isHeld() && isLocked(key));
			assertThat(holderLock.lostLockCount()).isZero();
		}
		assertThat(isLocked(key)).isFalse();
	}

	private static long millisSince(long nanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
	}

	/**
	 * Another client's acquisition, when it came, and what the old holder believed then.
	 */
	private record Takeover(LockHandle handle, long millis, boolean holderStillHeld) {
	}

}
