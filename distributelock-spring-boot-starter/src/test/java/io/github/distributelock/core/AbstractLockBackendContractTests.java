package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The behaviour every {@link LockBackend} must show under {@link DefaultDistributeLock}.
 * Each backend's {@code *ContractTests} runs it as a matrix: a store from its fixture
 * extension, a {@code @Nested} class per variant (a client, a database, callers on
 * virtual threads), each saying how to open a new connection to the store and how to read
 * the store directly. A variant marked {@link VirtualThreadContract} runs every
 * concurrent caller on a virtual thread.
 */
public abstract class AbstractLockBackendContractTests extends AbstractStoreContractTests {

	private static final Duration LONG_WAIT = Duration.ofSeconds(30);

	/** How far the store's expiry may round down: Redis counts in whole milliseconds. */
	private static final long CLOCK_TOLERANCE_MILLIS = 2;

	/** The critical sections of the fuzz test, shared by all its callers. */
	private static final int FUZZ_SECTIONS = 400;

	private ExecutorService callers;

	@AfterEach
	void stopCallers() {
		if (this.callers != null) {
			this.callers.shutdownNow();
		}
	}

	/**
	 * A pool of {@code threads} threads for concurrent callers, or a new virtual thread
	 * per task in the variant on virtual threads.
	 */
	protected ExecutorService newExecutor(int threads) {
		return onVirtualThreads() ? VirtualThreads.newExecutor() : Executors.newFixedThreadPool(threads);
	}

	private boolean onVirtualThreads() {
		return getClass().isAnnotationPresent(VirtualThreadContract.class);
	}

	/**
	 * How many concurrent callers each of the fuzz test's two instances has: 4, so that 8
	 * callers contend across instances and within each.
	 */
	protected int callersPerInstance() {
		return 4;
	}

	/** Runs the test's other callers, each task on a thread of its own. */
	protected Executor callers() {
		if (this.callers == null) {
			this.callers = newExecutor(8);
		}
		return this.callers;
	}

	protected DefaultDistributeLock newLock() {
		return newLock(trackBackend(newBackend()), DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
	}

	protected DefaultDistributeLock newLock(LockBackend backend, Duration watchdogLease, boolean throwOnLost) {
		DefaultDistributeLock lock = new DefaultDistributeLock(backend, watchdogLease, throwOnLost,
				LockEventListener.NONE, null);
		closeAfterTest(lock);
		return lock;
	}

	@Test
	void acquiresAndReleases() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		assertThat(handle.isHeld()).isTrue();
		assertThat(handle.key()).isEqualTo(key());
		assertThat(isLockedInStore(key())).isTrue();
		handle.close();
		assertThat(handle.isHeld()).isFalse();
		assertThat(isLockedInStore(key())).isFalse();
		handle.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void anotherInstanceCannotTakeAHeldLock() throws Exception {
		DefaultDistributeLock first = newLock();
		DefaultDistributeLock second = newLock();
		try (LockHandle handle = first.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
			assertThat(second.tryAcquire(key(), Duration.ZERO, null)).isEmpty();
		}
		assertThat(second.tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void releaseChecksTheOwner() throws Exception {
		LockBackend backend = trackBackend(newBackend());
		DefaultDistributeLock lock = newLock(backend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		assertThat(lock.tryLock(key(), "owner-a", 0, -1)).isTrue();
		assertThat(Backends.release(backend, key(), "owner-b")).isFalse();
		assertThat(lock.releaseLock(key(), "owner-b")).isFalse();
		assertThat(isLockedInStore(key())).isTrue();
		assertThat(lock.releaseLock(key(), "owner-a")).isTrue();
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(lock.releaseLock(key(), "owner-a")).isFalse();
	}

	@Test
	void valueOwnedLockRefusesAnotherValueAndIsReleasedByItsValueFromAnotherInstance() throws Exception {
		DefaultDistributeLock first = newLock();
		DefaultDistributeLock second = newLock();
		assertThat(first.tryLock(key(), "value-1", 0, 30_000)).isTrue();
		assertThat(first.tryLock(key(), "value-2", 0, 30_000)).isFalse();
		assertThat(second.tryLock(key(), "value-2", 0, 30_000)).isFalse();
		assertThat(second.releaseLock(key(), "value-1")).isTrue();
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Spring Integration's {@code testLockRenewLockNotOwned} with a lock owned by a value
	 * and released by that value in another instance: the holder's watchdog stops
	 * renewing it, and the next holder keeps the key through the old holder's renewal
	 * times.
	 */
	@Test
	void aValueOwnedLockReleasedByItsValueInAnotherInstanceIsRenewedNoMore() throws Exception {
		CountingLockBackend backend = trackBackend(CountingLockBackend.of(newBackend()));
		DefaultDistributeLock holder = newLock(backend, Duration.ofMillis(600), false);
		assertThat(holder.tryLock(key(), "value-1", 0, -1)).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !backend.leasesExpire() || backend.renewals.get() >= 1);
		assertThat(newLock().releaseLock(key(), "value-1")).isTrue();
		assertThat(isLockedInStore(key())).isFalse();
		DefaultDistributeLock next = newLock(trackBackend(newBackend()), Duration.ofMillis(600), false);
		try (LockHandle taken = next.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
			int renewals = backend.renewals.get();
			await().during(Duration.ofMillis(1500))
				.atMost(Duration.ofSeconds(3))
				.until(() -> backend.renewals.get() <= renewals + 1 && taken.isHeld());
			assertThat(taken.isHeld() && isLockedInStore(key())).isTrue();
		}
		assertThat(isLockedInStore(key())).isFalse();
		// The old holder's instance is not kept out of a key that is free.
		Optional<LockHandle> again = CompletableFuture
			.supplyAsync(() -> Locks.tryAcquire(holder, key(), Duration.ofSeconds(5)), callers())
			.get(20, TimeUnit.SECONDS);
		assertThat(again).isPresent();
		again.get().close();
		assertThat(holder.releaseLock(key(), "value-1")).isFalse();
	}

	/**
	 * Redisson's {@code RedissonLockTest#testReentrancy} for a lock owned by a value: the
	 * value of the original starter is not reentrant, so asking again with the holder's
	 * value, on its thread or another, waits and is refused, as {@code SET NX} refused
	 * it; one release frees the lock.
	 */
	@Test
	void aValueOwnedLockAskedForAgainWithItsValueIsRefusedAndOneReleaseFreesIt() throws Exception {
		DefaultDistributeLock lock = newLock();
		assertThat(lock.tryLock(key(), "value-1", 0, -1)).isTrue();
		assertThat(lock.tryLock(key(), "value-1", 200, -1)).isFalse();
		assertThat(CompletableFuture.supplyAsync(() -> {
			try {
				return lock.tryLock(key(), "value-1", 200, -1);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, callers()).get(10, TimeUnit.SECONDS)).isFalse();
		assertThat(isLockedInStore(key())).isTrue();
		assertThat(lock.releaseLock(key(), "value-1")).isTrue();
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(lock.releaseLock(key(), "value-1")).isFalse();
		assertThat(newLock().tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void handleCanBeClosedFromAnotherThread() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		CompletableFuture.runAsync(handle::close, callers()).get(10, TimeUnit.SECONDS);
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(lock.tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	protected void fixedLeaseExpires() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> !isLockedInStore(key()));
		assertThat(handle.isHeld()).isFalse();
		DefaultDistributeLock other = newLock();
		assertThat(other.tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
		handle.close();
		// The watchdog's timer marks the lock lost, then counts the loss, on its thread;
		// a close that finds the lock marked lost leaves the count to that thread.
		await().atMost(Duration.ofSeconds(10)).until(() -> lock.lostLockCount() == 1);
	}

	/**
	 * Spring Integration's {@code testReentrantLockAfterExpiration} and
	 * {@code testOutOfDateLockTaken}: the thread whose fixed lease ran out asks for the
	 * key again while another instance holds it. Joining the lost hold would let two
	 * holders in; closing the stale handle must not free the other instance's lock.
	 */
	@Test
	protected void aThreadWhoseFixedLeaseRanOutCannotReenterTheKeyAnotherInstanceTook() throws Exception {
		DefaultDistributeLock lock = newLock();
		DefaultDistributeLock other = newLock();
		LockHandle stale = lock.tryAcquire(key(), Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> !isLockedInStore(key()));
		LockHandle taken = other.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		Optional<LockHandle> again = lock.tryAcquire(key(), Duration.ZERO, null);
		again.ifPresent(LockHandle::close);
		assertThat(again).as("a reentrant entry into a lock another instance holds").isEmpty();
		stale.close();
		assertThat(taken.isHeld()).isTrue();
		assertThat(isLockedInStore(key())).isTrue();
		assertThat(newLock().tryAcquire(key(), Duration.ZERO, null)).isEmpty();
		taken.close();
		try (LockHandle afresh = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
			assertThat(afresh.fencingToken()).isGreaterThan(taken.fencingToken());
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	protected void forgottenFixedLeaseLockFreesTheKeyForThreadsOfTheSameInstance() throws Exception {
		DefaultDistributeLock lock = newLock();
		assertThat(lock.tryLock(key(), "never-released", 0, 300)).isTrue();
		Optional<LockHandle> next = CompletableFuture
			.supplyAsync(() -> Locks.tryAcquire(lock, key(), Duration.ofSeconds(10)), callers())
			.get(20, TimeUnit.SECONDS);
		assertThat(next).isPresent();
		next.get().close();
		assertThat(lock.releaseLock(key(), "never-released")).isFalse();
	}

	@Test
	protected void lostLockIsReportedToListenersAndAtRelease() throws Exception {
		DefaultDistributeLock lock = newLock(trackBackend(newBackend()), DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE,
				true);
		LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, Duration.ofMillis(300)).orElseThrow();
		CountDownLatch lost = new CountDownLatch(1);
		AtomicReference<LockHandle> reported = new AtomicReference<>();
		handle.onLost((lostHandle) -> {
			reported.set(lostHandle);
			lost.countDown();
		});
		assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(reported.get()).isSameAs(handle);
		assertThat(handle.isHeld()).isFalse();
		assertThatExceptionOfType(LockLostException.class).isThrownBy(handle::close).withMessageContaining(key());
	}

	@Test
	protected void watchdogKeepsAShortLeaseAliveThroughALongCriticalSection() throws Exception {
		DefaultDistributeLock lock = newLock(trackBackend(newBackend()), Duration.ofSeconds(1), false);
		DefaultDistributeLock other = newLock();
		try (LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
			await().during(Duration.ofSeconds(3))
				.atMost(Duration.ofSeconds(6))
				.pollInterval(Duration.ofMillis(200))
				.until(() -> handle.isHeld() && isLockedInStore(key())
						&& other.tryAcquire(key(), Duration.ZERO, null).isEmpty());
		}
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(lock.lostLockCount()).isZero();
	}

	@Test
	void watchdogStopsAtRelease() throws Exception {
		CountingLockBackend backend = trackBackend(CountingLockBackend.of(newBackend()));
		// A lease of a second, not less: on a starved machine a shorter one ran out
		// between
		// two renewals, and a lost lock is renewed no more, which this test cannot tell
		// from a watchdog that stopped.
		DefaultDistributeLock lock = newLock(backend, Duration.ofSeconds(1), false);
		LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> !backend.leasesExpire() || backend.renewals.get() >= 2);
		assertThat(lock.lostLockCount()).isZero();
		handle.close();
		int renewalsAtRelease = backend.renewals.get();
		// A tick that picked the lock up just before close() may still send its renewal
		// (owner-checked in every store, so harmless): one more, and no further ones,
		// over a time in which a running watchdog would renew about four times.
		await().during(Duration.ofMillis(1300))
			.atMost(Duration.ofSeconds(3))
			.until(() -> backend.renewals.get() <= renewalsAtRelease + 1);
	}

	@Test
	void waiterIsWokenByRelease() throws Exception {
		DefaultDistributeLock holder = newLock();
		CountingLockBackend waiterBackend = trackBackend(CountingLockBackend.of(newBackend()));
		DefaultDistributeLock waiter = newLock(waiterBackend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		LockHandle held = holder.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = CompletableFuture
			.supplyAsync(() -> Locks.tryAcquire(waiter, key(), Duration.ofSeconds(60)), callers());
		assertThat(waiterBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		long released = System.nanoTime();
		held.close();
		Optional<LockHandle> acquired = waiting.get(70, TimeUnit.SECONDS);
		long wokenAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
		assertThat(acquired).isPresent();
		// The holder's renewed lease (30 s) and the waiter's wait (60 s) are far longer:
		// only the release (its notification, or a poll that sees it) lets the waiter in
		// this soon.
		assertThat(wokenAfterMillis).as("waiter got the lock %d ms after the release", wokenAfterMillis)
			.isLessThan(10_000);
		acquired.get().close();
	}

	@Test
	void waitDeadlineIsHonoured() throws Exception {
		DefaultDistributeLock holder = newLock();
		DefaultDistributeLock waiter = newLock();
		try (LockHandle held = holder.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
			long start = System.nanoTime();
			assertThat(waiter.tryAcquire(key(), Duration.ofMillis(400), null)).isEmpty();
			long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
			assertThat(waitedMillis).isGreaterThanOrEqualTo(400).isLessThan(400 + 5_000);
		}
	}

	@Test
	void sameThreadReentersAndOnlyTheOutermostReleaseFreesTheLock() throws Exception {
		DefaultDistributeLock lock = newLock();
		DefaultDistributeLock other = newLock();
		LockHandle outer = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		LockHandle inner = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
		inner.close();
		assertThat(isLockedInStore(key())).isTrue();
		assertThat(outer.isHeld()).isTrue();
		assertThat(CompletableFuture.supplyAsync(() -> Locks.tryAcquire(lock, key(), Duration.ZERO), callers())
			.get(10, TimeUnit.SECONDS)).isEmpty();
		assertThat(other.tryAcquire(key(), Duration.ZERO, null)).isEmpty();
		outer.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void fencingTokensStrictlyIncrease() throws Exception {
		DefaultDistributeLock first = newLock();
		DefaultDistributeLock second = newLock();
		long previous = Long.MIN_VALUE;
		for (int i = 0; i < 20; i++) {
			DefaultDistributeLock lock = (i % 2 == 0) ? first : second;
			try (LockHandle handle = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
				assertThat(handle.fencingToken()).isGreaterThan(previous);
				previous = handle.fencingToken();
			}
		}
	}

	@Test
	void callersRunOnTheThreadsOfTheVariant() throws Exception {
		VirtualThreads.assertCallersRunOnVirtualThreads(callers(), onVirtualThreads());
	}

	/**
	 * ShedLock's fuzz test: callers on two instances increment a counter that is not
	 * atomic, each only under the lock; an overlap or a lost increment shows a broken
	 * exclusion.
	 */
	@Test
	void concurrentCallersOnTwoInstancesKeepMutualExclusion() throws Exception {
		DefaultDistributeLock[] instances = { newLock(), newLock() };
		int threads = instances.length * callersPerInstance();
		int iterations = FUZZ_SECTIONS / threads;
		int[] counter = { 0 };
		long[] lastToken = { Long.MIN_VALUE };
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger tokensNotAboveThePrevious = new AtomicInteger();
		ExecutorService pool = newExecutor(threads);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				DefaultDistributeLock lock = instances[t % instances.length];
				workers.add(pool.submit(() -> {
					for (int i = 0; i < iterations; i++) {
						try (LockHandle handle = lock.tryAcquire(key(), Duration.ofSeconds(60), null).orElseThrow()) {
							if (inside.incrementAndGet() != 1) {
								overlaps.incrementAndGet();
							}
							int read = counter[0];
							Thread.yield();
							counter[0] = read + 1;
							// Holders follow one another, so each one's token tops the
							// one before.
							if (handle.fencingToken() <= lastToken[0]) {
								tokensNotAboveThePrevious.incrementAndGet();
							}
							lastToken[0] = handle.fencingToken();
							inside.decrementAndGet();
						}
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(overlaps.get()).isZero();
		assertThat(tokensNotAboveThePrevious.get()).as("fencing tokens that did not grow from holder to holder")
			.isZero();
		assertThat(counter[0]).isEqualTo(threads * iterations);
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * A lock released while a caller of the same instance waits for it passes to that
	 * caller; on a store that hands locks over, in one store call, with no release that
	 * would let another instance in between, and no attempt of the waiter's own.
	 */
	@Test
	void aLockReleasedWhileACallerOfTheSameInstanceWaitsPassesToIt() throws Exception {
		CountingLockBackend backend = trackBackend(CountingLockBackend.of(newBackend()));
		DefaultDistributeLock lock = newLock(backend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		LockHandle held = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = CompletableFuture
			.supplyAsync(() -> Locks.tryAcquire(lock, key(), LONG_WAIT), callers());
		awaitWaitingAtGate(lock, 1);
		int attempts = backend.acquireAttempts.get();
		int releases = backend.releases.get();
		held.close();
		LockHandle next = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
		assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(isLockedInStore(key())).isTrue();
		if (backend.handsOver()) {
			assertThat(backend.handOvers.get()).as("hand-overs").isEqualTo(1);
			assertThat(backend.releases.get() - releases).as("releases sent").isZero();
			assertThat(backend.acquireAttempts.get() - attempts).as("attempts sent").isZero();
		}
		assertThat(newLock().tryAcquire(key(), Duration.ZERO, null)).isEmpty();
		next.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * The store holds a lock passed from one caller to the next for the new owner only:
	 * the old owner's value no longer releases it, the new owner's does, from any
	 * instance.
	 */
	@Test
	void aLockPassedToTheNextCallerIsOwnedInTheStoreByItsValue() throws Exception {
		DefaultDistributeLock lock = newLock();
		DefaultDistributeLock other = newLock();
		assertThat(lock.tryLock(key(), "first", 0, -1)).isTrue();
		CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
			try {
				return lock.tryLock(key(), "second", 30_000, -1);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, callers());
		awaitWaitingAtGate(lock, 1);
		assertThat(lock.releaseLock(key(), "first")).isTrue();
		assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
		assertThat(other.releaseLock(key(), "first")).isFalse();
		assertThat(isLockedInStore(key())).isTrue();
		assertThat(other.releaseLock(key(), "second")).isTrue();
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * A lock held for {@link #key()}, by a lock service whose backend holds back every
	 * release until {@code send} completes.
	 */
	private record HeldBack(CountingLockBackend backend, DefaultDistributeLock lock, LockHandle held,
			CompletableFuture<Void> send) {

	}

	private HeldBack holdWithReleasesHeldBack() throws InterruptedException {
		CountingLockBackend backend = trackBackend(CountingLockBackend.of(newBackend()));
		DefaultDistributeLock lock = newLock(backend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		LockHandle held = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		return new HeldBack(backend, lock, held, backend.holdBackReleases());
	}

	/**
	 * The lock service, closed while a handle's release is on its way to the store, waits
	 * for that release: the application context closes the store's client next, which
	 * would leave the lock in the store for its whole lease. A second close() meanwhile
	 * returns only with the first.
	 */
	@Test
	void closeWaitsForAReleaseInFlight() throws Exception {
		HeldBack heldBack = holdWithReleasesHeldBack();
		CompletableFuture<Void> releasing = heldBack.held().releaseAsync();
		CompletableFuture<Void> closing = CompletableFuture.runAsync(heldBack.lock()::close, callers());
		CompletableFuture<Void> closingAgain = CompletableFuture.runAsync(heldBack.lock()::close, callers());
		await().during(Duration.ofMillis(300))
			.atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(List.of(closing, closingAgain)).as("close() with a release held back")
				.noneMatch(CompletableFuture::isDone));
		heldBack.send().complete(null);
		closing.get(10, TimeUnit.SECONDS);
		closingAgain.get(10, TimeUnit.SECONDS);
		assertThat(isLockedInStore(key())).as("locked in the store when close() returned").isFalse();
		releasing.get(10, TimeUnit.SECONDS);
	}

	/**
	 * A second releaseAsync() while the first one's release is on its way to the store
	 * completes with that release, not before: its caller too may count on the lock being
	 * gone from the store.
	 */
	@Test
	void aSecondReleaseAsyncCompletesWithTheReleaseInFlight() throws Exception {
		HeldBack heldBack = holdWithReleasesHeldBack();
		CompletableFuture<Void> releasing = heldBack.held().releaseAsync();
		CompletableFuture<Void> releasingAgain = heldBack.held().releaseAsync();
		try {
			assertThat(releasingAgain).as("a second releaseAsync() with the release held back").isNotDone();
		}
		finally {
			// Else the lock service, closed after the test, waits for it.
			heldBack.send().complete(null);
		}
		releasingAgain.get(10, TimeUnit.SECONDS);
		assertThat(isLockedInStore(key())).as("locked in the store when releaseAsync() completed").isFalse();
		assertThat(releasing).succeedsWithin(Duration.ofSeconds(10));
		assertThat(heldBack.backend().releases).hasValue(1);
	}

	/**
	 * close() after releaseAsync() returns only once that release has ended, so that code
	 * after a try-with-resources block that released early finds the lock gone.
	 */
	@Test
	void closeAfterReleaseAsyncReturnsOnceTheReleaseInFlightHasEnded() throws Exception {
		HeldBack heldBack = holdWithReleasesHeldBack();
		CompletableFuture<Void> releasing = heldBack.held().releaseAsync();
		Thread closer = new Thread(heldBack.held()::close, "closer");
		closer.start();
		try {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> closer.getState() == Thread.State.WAITING || !closer.isAlive());
			assertThat(closer.isAlive()).as("close() returned with the release held back").isTrue();
		}
		finally {
			// Else the lock service, closed after the test, waits for it.
			heldBack.send().complete(null);
		}
		closer.join(10_000);
		assertThat(closer.isAlive()).isFalse();
		assertThat(isLockedInStore(key())).as("locked in the store when close() returned").isFalse();
		assertThat(releasing).succeedsWithin(Duration.ofSeconds(10));
		assertThat(heldBack.backend().releases).hasValue(1);
	}

	/**
	 * A second releaseAsync() while the first one's release is on its way to the store
	 * fails as that release does: its caller must not take a failed release for done.
	 */
	@Test
	void aSecondReleaseAsyncFailsAsTheReleaseInFlightDoes() throws Exception {
		HeldBack heldBack = holdWithReleasesHeldBack();
		CompletableFuture<Void> releasing = heldBack.held().releaseAsync();
		CompletableFuture<Void> releasingAgain = heldBack.held().releaseAsync();
		heldBack.backend().failReleases = true;
		heldBack.send().complete(null);
		assertThat(releasing).failsWithin(Duration.ofSeconds(10))
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(DistributeLockException.class);
		assertThat(releasingAgain).failsWithin(Duration.ofSeconds(10))
			.withThrowableThat()
			.havingCause()
			.isInstanceOf(DistributeLockException.class)
			.withMessageContaining(key());
		// The failed release is retried in the background.
		heldBack.backend().failReleases = false;
		await().atMost(Duration.ofSeconds(20)).until(() -> !isLockedInStore(key()));
	}

	/**
	 * A call with a wait of 0 that finds the key's release by this instance on its way to
	 * the store waits for that release and takes the lock, blocking or not, for one key
	 * or several: the key is being given back, not busy. A reactive subscription
	 * cancelled by {@code take(1)} or a timeout releases in the background, and its next
	 * subscription may come at once.
	 */
	@Test
	void aZeroWaitCallTakesALockWhoseReleaseByThisInstanceIsInFlight() throws Exception {
		CountingLockBackend backend = trackBackend(CountingLockBackend.of(newBackend()));
		DefaultDistributeLock lock = newLock(backend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		LockHandle held = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		LockHandle takenBlocking = zeroWaitWhileReleaseInFlight(backend, held,
				() -> CompletableFuture.supplyAsync(() -> {
					try {
						return lock.tryAcquire(key(), Duration.ZERO, null);
					}
					catch (InterruptedException ex) {
						throw new IllegalStateException(ex);
					}
				}, callers()));
		LockHandle takenAsync = zeroWaitWhileReleaseInFlight(backend, takenBlocking,
				() -> lock.tryAcquireAsync(LockRequest.of(key())));
		String other = key() + ".other";
		zeroWaitWhileReleaseInFlight(backend, takenAsync,
				() -> lock.tryAcquireAsync(LockRequest.all(LockRequest.of(key()), LockRequest.of(other))))
			.close();
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(isLockedInStore(other)).isFalse();
	}

	/**
	 * Releases {@code held} with its release held back on its way to the store, makes a
	 * call with a wait of 0 meanwhile, lets the release go, and returns what the call
	 * took.
	 */
	private LockHandle zeroWaitWhileReleaseInFlight(CountingLockBackend backend, LockHandle held,
			Supplier<CompletableFuture<Optional<LockHandle>>> zeroWait) throws Exception {
		CompletableFuture<Void> send = backend.holdBackReleases();
		CompletableFuture<Void> releasing = held.releaseAsync();
		CompletableFuture<Optional<LockHandle>> call;
		try {
			call = zeroWait.get();
			await("the zero-wait call waiting for the release in flight").during(Duration.ofMillis(200))
				.atMost(Duration.ofSeconds(5))
				.until(() -> !call.isDone() && isLockedInStore(key()));
		}
		finally {
			send.complete(null);
		}
		releasing.get(10, TimeUnit.SECONDS);
		return call.get(10, TimeUnit.SECONDS).orElseThrow();
	}

	/**
	 * A waiter that gives up while the lock is being handed to it (here: its future is
	 * cancelled while the store's answer is held back) gives back what it was handed.
	 */
	@Test
	protected void aWaiterThatGivesUpWhileTheLockIsHandedToItLeavesNothingInTheStore() throws Exception {
		CountingLockBackend backend = trackBackend(CountingLockBackend.of(newBackend()));
		// A store that does not hand locks over overrides this test, saying why.
		assertThat(backend.handsOver()).as("the store hands locks over").isTrue();
		DefaultDistributeLock lock = newLock(backend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		LockHandle held = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = lock
			.tryAcquireAsync(LockRequest.of(key()).withWaitTime(LONG_WAIT));
		awaitWaitingAtGate(lock, 1);
		CountDownLatch answer = backend.holdBackHandOvers();
		CompletableFuture<Void> closing = CompletableFuture.runAsync(held::close, callers());
		assertThat(backend.handingOver.await(10, TimeUnit.SECONDS)).isTrue();
		waiting.cancel(false);
		answer.countDown();
		closing.get(10, TimeUnit.SECONDS);
		// The give-back leaves the instance's table when the store's answer arrives, just
		// after the store has freed the key.
		await().atMost(Duration.ofSeconds(10)).until(() -> !isLockedInStore(key()) && lock.heldLocks().isEmpty());
		assertThat(newLock().tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
		assertThat(lock.tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	/**
	 * A blocking waiter interrupted while the lock is being handed to it gets an
	 * {@link InterruptedException} and gives back what it was handed.
	 */
	@Test
	protected void aWaiterInterruptedWhileTheLockIsHandedToItLeavesNothingInTheStore() throws Exception {
		CountingLockBackend backend = trackBackend(CountingLockBackend.of(newBackend()));
		// A store that does not hand locks over overrides this test, saying why.
		assertThat(backend.handsOver()).as("the store hands locks over").isTrue();
		DefaultDistributeLock lock = newLock(backend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		LockHandle held = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		AtomicReference<Thread> waiterThread = new AtomicReference<>();
		CompletableFuture<Object> waiting = CompletableFuture.supplyAsync(() -> {
			waiterThread.set(Thread.currentThread());
			try {
				return lock.tryAcquire(key(), LONG_WAIT, null);
			}
			catch (InterruptedException ex) {
				return ex;
			}
		}, callers());
		awaitWaitingAtGate(lock, 1);
		CountDownLatch answer = backend.holdBackHandOvers();
		CompletableFuture<Void> closing = CompletableFuture.runAsync(held::close, callers());
		assertThat(backend.handingOver.await(10, TimeUnit.SECONDS)).isTrue();
		waiterThread.get().interrupt();
		answer.countDown();
		assertThat(waiting.get(20, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		closing.get(10, TimeUnit.SECONDS);
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(lock.heldLocks()).isEmpty();
		assertThat(newLock().tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	/**
	 * Callers of one instance that keep the key busy hand it to each other at most
	 * {@link LocalLocks#LONGEST_HAND_OVER_RUN} times in a row, then release it in the
	 * store, where a waiter of another instance may take it. That release gives the other
	 * instance a chance, not a turn: the busy instance's next caller races it for the
	 * key, and on a loaded machine may win every race for seconds (a clean CI run saw
	 * 13,865 busy cycles pass by a 20 s wait on a Redis Cluster). A turn is what the fair
	 * lock promises; here the other instance is only never left waiting once the busy
	 * callers stop.
	 */
	@Test
	void callersOfOneInstanceThatKeepPassingTheLockOnReleaseItInTheStoreEveryFewAcquisitions() throws Exception {
		CountingLockBackend counting = trackBackend(CountingLockBackend.of(newBackend()));
		DefaultDistributeLock busy = newLock(counting, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		DefaultDistributeLock other = newLock();
		int busyCallers = 4;
		int cyclesPerCaller = 100;
		ExecutorService pool = newExecutor(busyCallers);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < busyCallers; t++) {
				workers.add(pool.submit(() -> {
					for (int i = 0; i < cyclesPerCaller; i++) {
						try (LockHandle held = Locks.tryAcquire(busy, key(), LONG_WAIT).orElseThrow()) {
							// Work under the lock, long enough for every other caller to
							// queue again at the gate before it is released.
							LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
						}
					}
					return null;
				}));
			}
			CompletableFuture<Boolean> otherWaits = CompletableFuture.supplyAsync(() -> {
				Optional<LockHandle> taken = Locks.tryAcquire(other, key(), Duration.ofSeconds(60));
				taken.ifPresent(LockHandle::close);
				return taken.isPresent();
			}, callers());
			for (Future<?> worker : workers) {
				worker.get(60, TimeUnit.SECONDS);
			}
			int cycles = busyCallers * cyclesPerCaller;
			assertThat(counting.releases.get())
				.as("releases in the store in %d cycles with %d hand-overs", cycles, counting.handOvers.get())
				.isGreaterThanOrEqualTo(cycles / (LocalLocks.LONGEST_HAND_OVER_RUN + 1));
			assertThat(counting.releases.get() + counting.handOvers.get()).isEqualTo(cycles);
			assertThat(otherWaits.get(60, TimeUnit.SECONDS))
				.as("the other instance got the lock, at the latest once the busy callers stopped")
				.isTrue();
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	private void awaitWaitingAtGate(DefaultDistributeLock lock, int callers) {
		Locks.awaitWaitingAtGate(lock, key(), callers);
	}

	@Test
	void closeWakesWaitersReleasesHeldLocksAndRefusesNewCalls() throws Exception {
		DefaultDistributeLock holder = newLock();
		CountingLockBackend waiterBackend = trackBackend(CountingLockBackend.of(newBackend()));
		DefaultDistributeLock waiter = newLock(waiterBackend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		holder.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		assertThat(holder.tryLock(key() + ".by-value", "value", 0, -1)).isTrue();
		AtomicReference<Thread> gateThread = new AtomicReference<>();
		CompletableFuture<Boolean> atGate = CompletableFuture.supplyAsync(() -> {
			gateThread.set(Thread.currentThread());
			return acquireExpectingShutdown(holder);
		}, callers());
		CompletableFuture<Boolean> atStore = CompletableFuture.supplyAsync(() -> acquireExpectingShutdown(waiter),
				callers());
		assertThat(waiterBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> gateThread.get() != null && (gateThread.get().getState() == Thread.State.TIMED_WAITING
					|| gateThread.get().getState() == Thread.State.WAITING));
		// Each waiter would wait 30 s: returning within 10 s means close() woke it.
		waiter.close();
		assertThat(atStore.get(10, TimeUnit.SECONDS)).as("interrupt status left after the wake-up").isFalse();
		assertThat(isLockedInStore(key())).isTrue();
		holder.close();
		assertThat(atGate.get(10, TimeUnit.SECONDS)).as("interrupt status left after the wake-up").isFalse();
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(isLockedInStore(key() + ".by-value")).isFalse();
		assertThatExceptionOfType(DistributeLockException.class)
			.isThrownBy(() -> holder.tryAcquire(key(), Duration.ZERO, null))
			.withMessageContaining("shutting down")
			.withMessageContaining(key());
		assertThatExceptionOfType(DistributeLockException.class).isThrownBy(() -> holder.tryLock(key(), "v", 0, -1))
			.withMessageContaining("shutting down");
		assertThat(holder.releaseLock(key() + ".by-value", "value")).isFalse();
		holder.close();
	}

	/**
	 * Waits for the lock until the lock service shuts down; returns whether the thread
	 * was left interrupted.
	 */
	private boolean acquireExpectingShutdown(DefaultDistributeLock lock) {
		try {
			lock.tryAcquire(key(), LONG_WAIT, null).ifPresent(LockHandle::close);
			throw new AssertionError("acquired the lock instead of being woken by the shutdown");
		}
		catch (DistributeLockException ex) {
			assertThat(ex).hasMessageContaining("shutting down").hasMessageContaining(key());
			return Thread.currentThread().isInterrupted();
		}
		catch (InterruptedException ex) {
			throw new AssertionError("interrupted instead of told of the shutdown", ex);
		}
	}

	@Test
	void callbackRunsUnderTheLockAndFallsBackWhenHeld() throws Exception {
		DefaultDistributeLock lock = newLock();
		DefaultDistributeLock other = newLock();
		String result = lock.tryLockAndCallBack(key(), 0, -1, () -> {
			assertThat(isLockedInStore(key())).isTrue();
			return other.tryLockAndCallBack(key(), 0, 5_000, () -> "nested", () -> "refused");
		}, () -> "failed");
		assertThat(result).isEqualTo("refused");
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void badArgumentsAreRefusedWithAClearMessage() {
		DefaultDistributeLock lock = newLock();
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> lock.tryAcquire(" ", Duration.ZERO, null))
			.withMessageContaining("lockKey");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> lock.tryAcquire(key(), Duration.ofMillis(-1), null))
			.withMessageContaining("waitTime");
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> lock.tryAcquire(key(), Duration.ZERO, Duration.ZERO))
			.withMessageContaining("leaseTime");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> lock.tryLock(key(), "v", 0, 0))
			.withMessageContaining("timeoutMs");
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void closeWithTheInterruptFlagSetReleasesTheLockAndKeepsTheFlag() throws Exception {
		DefaultDistributeLock lock = newLock();
		boolean flagKept = CompletableFuture.supplyAsync(() -> {
			LockHandle handle = Locks.tryAcquire(lock, key(), Duration.ZERO).orElseThrow();
			Thread.currentThread().interrupt();
			try {
				handle.close();
				return Thread.currentThread().isInterrupted();
			}
			finally {
				Thread.interrupted();
			}
		}, callers()).get(20, TimeUnit.SECONDS);
		assertThat(flagKept).isTrue();
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(newLock().tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void releaseLockWithTheInterruptFlagSetReleasesTheLockAndKeepsTheFlag() throws Exception {
		DefaultDistributeLock lock = newLock();
		DefaultDistributeLock other = newLock();
		assertThat(lock.tryLock(key(), "value-1", 0, -1)).isTrue();
		assertThat(other.tryLock(key() + ".other", "value-2", 0, -1)).isTrue();
		List<Boolean> results = CompletableFuture.supplyAsync(() -> {
			Thread.currentThread().interrupt();
			try {
				// Held here, and held through another instance: both paths release.
				boolean released = lock.releaseLock(key(), "value-1");
				boolean releasedElsewhere = lock.releaseLock(key() + ".other", "value-2");
				return List.of(released, releasedElsewhere, Thread.currentThread().isInterrupted());
			}
			finally {
				Thread.interrupted();
			}
		}, callers()).get(20, TimeUnit.SECONDS);
		assertThat(results).containsExactly(true, true, true);
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(isLockedInStore(key() + ".other")).isFalse();
	}

	@Test
	void acquisitionWithTheInterruptFlagSetThrowsInterruptedExceptionAndClearsIt() throws Exception {
		DefaultDistributeLock lock = newLock();
		List<Object> outcome = CompletableFuture.supplyAsync(() -> {
			Thread.currentThread().interrupt();
			try {
				return List.<Object>of(lock.tryAcquire(key(), Duration.ofSeconds(5), null));
			}
			catch (InterruptedException ex) {
				return List.<Object>of(ex, Thread.currentThread().isInterrupted());
			}
			finally {
				Thread.interrupted();
			}
		}, callers()).get(20, TimeUnit.SECONDS);
		assertThat(outcome).hasSize(2);
		assertThat(outcome.get(0)).isInstanceOf(InterruptedException.class);
		assertThat(((InterruptedException) outcome.get(0)).getMessage()).contains(key());
		assertThat(outcome.get(1)).isEqualTo(false);
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void waiterInterruptedWhileWaitingGetsInterruptedExceptionAndTakesNothing() throws Exception {
		DefaultDistributeLock holder = newLock();
		CountingLockBackend waiterBackend = CountingLockBackend.of(trackBackend(newBackend()));
		DefaultDistributeLock waiter = newLock(waiterBackend, DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false);
		LockHandle held = holder.tryAcquire(key(), Duration.ZERO, null).orElseThrow();
		AtomicReference<Thread> waiterThread = new AtomicReference<>();
		CompletableFuture<Object> waiting = CompletableFuture.supplyAsync(() -> {
			waiterThread.set(Thread.currentThread());
			try {
				return waiter.tryAcquire(key(), LONG_WAIT, null);
			}
			catch (InterruptedException ex) {
				return ex;
			}
		}, callers());
		assertThat(waiterBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		waiterThread.get().interrupt();
		assertThat(waiting.get(20, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		assertThat(held.isHeld()).isTrue();
		held.close();
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(waiter.heldLocks()).isEmpty();
		assertThat(waiter.tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	/**
	 * Redisson's "interrupted acquire": interrupts land at any point of acquisitions, in
	 * the store call too, where the client gives up waiting for a reply that the store
	 * may still apply. Whatever each call ends with, no lock may be left in the store.
	 */
	@Test
	void interruptsAtAnyPointOfAcquisitionsLeaveNoLockInTheStore() throws Exception {
		DefaultDistributeLock lock = newLock();
		ExecutorService acquirers = newExecutor(1);
		AtomicReference<Throwable> unexpected = new AtomicReference<>();
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger interrupted = new AtomicInteger();
		long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		try {
			for (int i = 0; i < 60 && System.nanoTime() - end < 0; i++) {
				CountDownLatch started = new CountDownLatch(1);
				Future<?> call = acquirers.submit(() -> {
					started.countDown();
					try {
						Optional<LockHandle> handle = lock.tryAcquire(key(), Duration.ofSeconds(5), null);
						handle.ifPresent((held) -> {
							acquired.incrementAndGet();
							held.close();
						});
					}
					catch (InterruptedException ex) {
						interrupted.incrementAndGet();
					}
					catch (Throwable ex) {
						unexpected.compareAndSet(null, ex);
					}
				});
				assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
				// Spreads the interrupts over the call, the store round trip included.
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
				call.cancel(true);
			}
		}
		finally {
			acquirers.shutdown();
			assertThat(acquirers.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(unexpected.get()).isNull();
		assertThat(acquired.get() + interrupted.get()).isPositive();
		assertThat(isLockedInStore(key()))
			.as("a lock left in the store after %d acquisitions and %d interrupts", acquired.get(), interrupted.get())
			.isFalse();
		assertThat(newLock().tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	/**
	 * Interrupts that land anywhere while callers of one instance pass a lock on to each
	 * other (in a hand-over, at the gate, in the store call): whatever each call ends
	 * with, holders never overlap and no lock is left in the store or in the instance.
	 */
	@Test
	void interruptsWhileCallersOfOneInstancePassTheLockOnLeaveNoLockBehind() throws Exception {
		DefaultDistributeLock lock = newLock();
		int callers = 3;
		InterruptFuzz fuzz = InterruptFuzz.run(newExecutor(callers), Collections.nCopies(callers, lock),
				LockRequest.of(key()).withWaitTime(Duration.ofSeconds(5)), 1, 20, 30, Duration.ofSeconds(10));
		assertThat(fuzz.unexpected()).isNull();
		assertThat(fuzz.exceeded()).as("overlaps").isZero();
		assertThat(fuzz.acquired()).isPositive();
		await().atMost(Duration.ofSeconds(10)).until(() -> lock.heldLocks().isEmpty());
		assertThat(isLockedInStore(key()))
			.as("a lock left in the store after %d acquisitions and %d interrupts", fuzz.acquired(), fuzz.interrupted())
			.isFalse();
		assertThat(newLock().tryAcquire(key(), Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void minimumHoldKeepsAnEarlyReleasedLockInTheStoreUntilItHasPassedAndNoLonger() throws Exception {
		CountingLockBackend backend = trackBackend(CountingLockBackend.of(newBackend()));
		// Renewed every 100 ms, so that a renewal may be in flight at the release: it
		// must not set the lease after the release cut it to the rest of the minimum.
		DefaultDistributeLock holder = newLock(backend, Duration.ofMillis(300), false);
		DefaultDistributeLock other = newLock();
		// Longer than the wait for the first renewal below, so that some of it is always
		// left at the release, however late that renewal comes.
		Duration minimum = Duration.ofMillis(3000);
		long before = System.nanoTime();
		LockHandle handle = holder.tryAcquire(LockRequest.of(key()).withMinimumHold(minimum)).orElseThrow();
		await().atMost(Duration.ofMillis(2500)).until(() -> !backend.leasesExpire() || backend.renewals.get() >= 1);
		handle.close();
		assertThat(handle.isHeld()).isFalse();
		assertThat(holder.heldLocks()).isEmpty();
		assertThat(isLockedInStore(key())).isTrue();
		// Not reentrant any more, for the thread that held it either.
		assertThat(holder.tryAcquire(key(), Duration.ZERO, null)).isEmpty();
		Optional<LockHandle> next = other.tryAcquire(key(), Duration.ofSeconds(20), null);
		long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
		assertThat(next).as("taken when the minimum hold ended, not after a whole lease").isPresent();
		next.get().close();
		assertThat(waitedMillis).isGreaterThanOrEqualTo(minimum.toMillis() - CLOCK_TOLERANCE_MILLIS);
		assertThat(holder.lostLockCount()).isZero();
	}

	@Test
	void minimumHoldThatHasPassedReleasesAtOnce() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockHandle handle = lock.tryAcquire(LockRequest.of(key()).withMinimumHold(Duration.ofMillis(50))).orElseThrow();
		// The work outlasts the minimum hold.
		Thread.sleep(150);
		handle.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void minimumHoldDoesNotDelayTheReleaseByValueOrTheGiveBackAtShutdown() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockRequest request = LockRequest.of(key()).withMinimumHold(Duration.ofMinutes(5));
		assertThat(lock.tryAcquire(request.withOwner("value-1"))).isPresent();
		assertThat(lock.releaseLock(key(), "value-1")).isTrue();
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(lock.tryAcquire(request)).isPresent();
		lock.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * A lock kept for its minimum hold (on ZooKeeper, by a release put off to its end)
	 * and then released by value is released at once: the value is free for a new claim.
	 */
	@Test
	void aValueWhoseLockIsKeptForItsMinimumHoldIsFreeOnceReleasedByValue() throws Exception {
		DefaultDistributeLock lock = newLock();
		lock.tryAcquire(LockRequest.of(key()).withOwner("value-1").withMinimumHold(Duration.ofMinutes(5)))
			.orElseThrow()
			.close();
		assertThat(isLockedInStore(key())).isTrue();
		assertThat(lock.releaseLock(key(), "value-1")).isTrue();
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(lock.tryLock(key(), "value-1", 0, -1)).as("the value claimed again once released").isTrue();
		assertThat(lock.releaseLock(key(), "value-1")).isTrue();
		assertThat(isLockedInStore(key())).isFalse();
	}

	private Optional<LockHandle> acquireQuietly(DefaultDistributeLock lock, Duration wait) {
		try {
			return lock.tryAcquire(key(), wait, null);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
