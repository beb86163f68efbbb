package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * What every backend must do for each kind of lock (fair, read/write, permits, multi-key)
 * under {@link DefaultDistributeLock}. Each store's test extends this class, as it does
 * {@link AbstractLockBackendContractTests} for the exclusive lock; instances are separate
 * {@code DefaultDistributeLock}s over separate backends, as separate JVMs would have.
 */
public abstract class AbstractLockKindsContractTests extends AbstractStoreContractTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	/**
	 * The minimum hold of the tests of minimum holds: short, as each waits for it several
	 * times, but long enough for the step each is about, which each checks came before
	 * the hold ended.
	 */
	private static final Duration MINIMUM_HOLD = Duration.ofMillis(500);

	private final ExecutorService callers = Executors.newCachedThreadPool();

	@AfterEach
	void stopCallers() {
		this.callers.shutdownNow();
	}

	protected DefaultDistributeLock newLock() {
		return closeAfterTest(new DefaultDistributeLock(trackBackend(newBackend())));
	}

	private CountingLockBackend countingBackend() {
		return CountingLockBackend.of(trackBackend(newBackend()));
	}

	// Fair

	@Test
	void fairWaitersOfSeveralInstancesAreServedInArrivalOrder() throws Exception {
		DefaultDistributeLock holder = newLock();
		LockHandle held = holder.tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		List<Integer> served = new CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			int number = i;
			CountingLockBackend backend = countingBackend();
			DefaultDistributeLock waiter = closeAfterTest(new DefaultDistributeLock(backend));
			waiters.add(this.callers.submit(() -> {
				try (LockHandle handle = waiter.tryAcquire(LockRequest.of(key()).withFair(true).withWaitTime(WAIT))
					.orElseThrow()) {
					served.add(number);
				}
				return null;
			}));
			// The next waiter starts only once this one is queued in the store.
			assertThat(backend.waiting.await(20, TimeUnit.SECONDS)).isTrue();
		}
		held.close();
		for (Future<?> waiter : waiters) {
			waiter.get(60, TimeUnit.SECONDS);
		}
		assertThat(served).containsExactly(0, 1, 2, 3);
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Fair waiters of two instances, the holder's among them, queued alternately: a
	 * holder hands the lock to a waiter of its own instance only when that waiter heads
	 * the store's queue, so arrival order holds across instances.
	 */
	@Test
	void fairWaitersOfTwoInstancesAreServedInArrivalOrderWhenHoldersHandTheLockOn() throws Exception {
		CountingLockBackend[] backends = { countingBackend(), countingBackend() };
		DefaultDistributeLock[] instances = { closeAfterTest(new DefaultDistributeLock(backends[0])),
				closeAfterTest(new DefaultDistributeLock(backends[1])) };
		LockHandle held = instances[0].tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		List<Integer> served = new CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		int[] order = { 1, 0, 0, 1, 1, 0 };
		for (int i = 0; i < order.length; i++) {
			int number = i;
			DefaultDistributeLock waiter = instances[order[i]];
			int queuedBefore = backends[order[i]].awaitingRelease.get();
			waiters.add(this.callers.submit(() -> {
				try (LockHandle handle = waiter.tryAcquire(LockRequest.of(key()).withFair(true).withWaitTime(WAIT))
					.orElseThrow()) {
					served.add(number);
				}
				return null;
			}));
			// The next waiter starts only once this one is queued in the store.
			CountingLockBackend backend = backends[order[i]];
			await().atMost(Duration.ofSeconds(20)).until(() -> backend.awaitingRelease.get() > queuedBefore);
		}
		held.close();
		for (Future<?> waiter : waiters) {
			waiter.get(60, TimeUnit.SECONDS);
		}
		assertThat(served).containsExactly(0, 1, 2, 3, 4, 5);
		if (backends[0].handsOver()) {
			// 1 to 2, 3 to 4: a waiter of the releasing instance headed the queue.
			assertThat(backends[0].handOvers.get() + backends[1].handOvers.get() + backends[0].admissions.get()
					+ backends[1].admissions.get())
				.as("hand-overs attempted")
				.isGreaterThanOrEqualTo(2);
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Fair waiters of one instance take the lock from each other in arrival order, each
	 * hand-off one store call when the store hands locks over.
	 */
	@Test
	void fairWaitersOfTheHoldersInstanceTakeTheLockFromEachOtherInArrivalOrder() throws Exception {
		CountingLockBackend backend = countingBackend();
		DefaultDistributeLock lock = closeAfterTest(new DefaultDistributeLock(backend));
		LockHandle held = lock.tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		List<Integer> served = new CopyOnWriteArrayList<>();
		List<Future<?>> waiters = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			int number = i;
			int queuedBefore = backend.awaitingRelease.get();
			waiters.add(this.callers.submit(() -> {
				try (LockHandle handle = lock.tryAcquire(LockRequest.of(key()).withFair(true).withWaitTime(WAIT))
					.orElseThrow()) {
					served.add(number);
				}
				return null;
			}));
			await().atMost(Duration.ofSeconds(20)).until(() -> backend.awaitingRelease.get() > queuedBefore);
		}
		int releases = backend.releases.get();
		held.close();
		for (Future<?> waiter : waiters) {
			waiter.get(60, TimeUnit.SECONDS);
		}
		assertThat(served).containsExactly(0, 1, 2, 3);
		if (backend.handsOver()) {
			// A store that keeps the key held across a release to the claim right behind
			// the holder (ZooKeeper, one session) lets that claim hold as the holder's
			// release is sent, instead of a hand-over.
			int admissions = backend.admissions.get();
			assertThat(backend.handOvers.get() + admissions).as("hand-overs and admissions").isEqualTo(4);
			assertThat(backend.releases.get() - releases - admissions).as("releases: only the last holder's")
				.isEqualTo(1);
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void aFairWaiterThatGivesUpLeavesTheQueueAtOnce() throws Exception {
		DefaultDistributeLock holder = newLock();
		LockHandle held = holder.tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		CountingLockBackend quitterBackend = countingBackend();
		DefaultDistributeLock quitter = closeAfterTest(new DefaultDistributeLock(quitterBackend));
		assertThat(quitter.tryAcquire(LockRequest.of(key()).withFair(true).withWaitTime(Duration.ofMillis(300))))
			.isEmpty();
		DefaultDistributeLock next = newLock();
		CompletableFuture<Optional<LockHandle>> behind = next
			.tryAcquireAsync(LockRequest.of(key()).withFair(true).withWaitTime(WAIT));
		held.close();
		// Far sooner than a waiter's entry would expire on its own.
		LockHandle taken = behind.get(5, TimeUnit.SECONDS).orElseThrow();
		taken.close();
	}

	/**
	 * Curator's {@code TestInterProcessSemaphore#testInterruptAcquire} (CURATOR-462), for
	 * every kind that queues: a fair, write or permit waiter interrupted while it waits
	 * gets {@link InterruptedException}, takes nothing, and leaves the queue at once, so
	 * the next caller (for a writer: a reader, whom a waiting writer keeps out) is not
	 * held up until the interrupted waiter's entry would expire.
	 */
	@Test
	void aWaiterInterruptedWhileItWaitsLeavesTheQueueAtOnceAndTakesNothing() throws Exception {
		LockRequest fair = LockRequest.of(key() + ".fair").withFair(true);
		LockRequest write = LockRequest.of(key() + ".write").withMode(LockMode.WRITE);
		LockRequest permit = LockRequest.of(key() + ".permit").withPermits(1);
		assertInterruptedWaiterLeaves(fair, fair);
		assertInterruptedWaiterLeaves(write, LockRequest.of(write.key()).withMode(LockMode.READ));
		assertInterruptedWaiterLeaves(permit, permit);
	}

	/**
	 * Redisson's {@code RedissonLockTest#testLockIsNotRenewedAfterInterruptedTryLock} and
	 * the contract's interrupts at any point of an acquisition, for every kind: callers
	 * of two instances take and release a key while interrupts land anywhere, in the
	 * store call and in a wait included. Holders never exceed the kind's limit, and
	 * nothing is left: no holder in the store, and no queue entry that would keep a fresh
	 * caller out.
	 */
	@Test
	void interruptsAnywhereInCallsOfEveryKindLeaveNothingBehind() throws Exception {
		assertInterruptsLeaveNothing(LockRequest.of(key() + ".fair").withFair(true), 1);
		assertInterruptsLeaveNothing(LockRequest.of(key() + ".write").withMode(LockMode.WRITE), 1);
		assertInterruptsLeaveNothing(LockRequest.of(key() + ".read").withMode(LockMode.READ), Integer.MAX_VALUE);
		assertInterruptsLeaveNothing(LockRequest.of(key() + ".permits").withPermits(2), 2);
	}

	private void assertInterruptsLeaveNothing(LockRequest kind, int most) throws Exception {
		DefaultDistributeLock[] instances = { newLock(), newLock() };
		InterruptFuzz fuzz = InterruptFuzz.run(Executors.newFixedThreadPool(4),
				List.of(instances[0], instances[1], instances[0], instances[1]),
				kind.withWaitTime(Duration.ofSeconds(5)), most, 10, 15, Duration.ofSeconds(2));
		assertThat(fuzz.unexpected()).as(kind.key()).isNull();
		assertThat(fuzz.exceeded()).as(kind.key()).isZero();
		assertThat(fuzz.acquired()).as(kind.key()).isPositive();
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(isLockedInStore(kind.key()))
				.as("%s held after %d acquisitions and %d interrupts", kind.key(), fuzz.acquired(), fuzz.interrupted())
				.isFalse());
		for (DefaultDistributeLock lock : instances) {
			assertThat(lock.heldLocks()).as(kind.key()).isEmpty();
		}
		assertThat(newLock().tryAcquire(kind)).as(kind.key()).hasValueSatisfying(LockHandle::close);
	}

	/**
	 * Curator's {@code TestInterProcessSemaphore#testClientClose}, for every kind:
	 * closing an instance releases the fair, read, write and permit locks it holds, and
	 * ends its waiters, which leave the store's queues: other instances take every key at
	 * once, or as soon as its holder lets go, not when a waiter's entry would expire.
	 */
	@Test
	void closingAnInstanceReleasesEveryKindItHoldsAndItsWaitersLeaveTheQueues() throws Exception {
		LockRequest fair = LockRequest.of(key() + ".fair").withFair(true);
		LockRequest read = LockRequest.of(key() + ".read").withMode(LockMode.READ);
		LockRequest write = LockRequest.of(key() + ".write").withMode(LockMode.WRITE);
		LockRequest permit = LockRequest.of(key() + ".permit").withPermits(1);
		List<LockRequest> held = List.of(fair, read, write, permit);
		List<LockRequest> queued = List.of(LockRequest.of(key() + ".fair-queue").withFair(true),
				LockRequest.of(key() + ".write-queue").withMode(LockMode.WRITE),
				LockRequest.of(key() + ".permit-queue").withPermits(1));
		CountingLockBackend closingBackend = countingBackend();
		DefaultDistributeLock closing = closeAfterTest(new DefaultDistributeLock(closingBackend));
		for (LockRequest kind : held) {
			closing.tryAcquire(kind).orElseThrow();
		}
		DefaultDistributeLock holder = newLock();
		List<LockHandle> holding = new ArrayList<>();
		List<CompletableFuture<Optional<LockHandle>>> waiting = new ArrayList<>();
		for (LockRequest kind : queued) {
			holding.add(holder.tryAcquire(kind).orElseThrow());
			waiting.add(closing.tryAcquireAsync(kind.withWaitTime(WAIT)));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> closingBackend.awaitingRelease.get() >= queued.size());
		closing.close();
		for (CompletableFuture<Optional<LockHandle>> waiter : waiting) {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiter.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(DistributeLockException.class)
				.withMessageContaining("shutting down");
		}
		DefaultDistributeLock other = newLock();
		List<LockRequest> exclusive = List.of(fair, read.withMode(LockMode.WRITE), write, permit);
		for (LockRequest kind : exclusive) {
			assertThat(other.tryAcquire(kind)).as(kind.key()).hasValueSatisfying(LockHandle::close);
		}
		List<CompletableFuture<Optional<LockHandle>>> behind = new ArrayList<>();
		for (LockRequest kind : queued) {
			behind.add(other.tryAcquireAsync(kind.withWaitTime(WAIT)));
		}
		for (LockHandle handle : holding) {
			handle.close();
		}
		for (int i = 0; i < queued.size(); i++) {
			// Far sooner than a waiter's entry would expire on its own.
			LockHandle taken = behind.get(i).get(5, TimeUnit.SECONDS).orElseThrow();
			taken.close();
			assertThat(isLockedInStore(queued.get(i).key())).as(queued.get(i).key()).isFalse();
		}
	}

	private void assertInterruptedWaiterLeaves(LockRequest kind, LockRequest next) throws Exception {
		LockHandle held = newLock().tryAcquire(kind).orElseThrow();
		CountingLockBackend waiterBackend = countingBackend();
		DefaultDistributeLock waiter = closeAfterTest(new DefaultDistributeLock(waiterBackend));
		AtomicReference<Thread> waiterThread = new AtomicReference<>();
		Future<Object> waiting = this.callers.submit(() -> {
			waiterThread.set(Thread.currentThread());
			try {
				return waiter.tryAcquire(kind.withWaitTime(WAIT));
			}
			catch (InterruptedException ex) {
				return ex;
			}
		});
		assertThat(waiterBackend.waiting.await(10, TimeUnit.SECONDS)).as(kind.key()).isTrue();
		waiterThread.get().interrupt();
		assertThat(waiting.get(10, TimeUnit.SECONDS)).as(kind.key()).isInstanceOf(InterruptedException.class);
		assertThat(waiter.heldLocks()).as(kind.key()).isEmpty();
		CompletableFuture<Optional<LockHandle>> behind = newLock().tryAcquireAsync(next.withWaitTime(WAIT));
		held.close();
		// Far sooner than a waiter's entry would expire on its own.
		LockHandle taken = behind.get(5, TimeUnit.SECONDS).orElseThrow();
		taken.close();
		assertThat(isLockedInStore(kind.key())).as(kind.key()).isFalse();
		assertThat(waiter.tryAcquire(kind)).as(kind.key()).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void aFairLockAndAPlainLockOfTheSameKeyExcludeEachOther() throws Exception {
		DefaultDistributeLock plain = newLock();
		DefaultDistributeLock fair = newLock();
		try (LockHandle held = plain.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
			assertThat(fair.tryAcquire(LockRequest.of(key()).withFair(true))).isEmpty();
		}
		try (LockHandle held = fair.tryAcquire(LockRequest.of(key()).withFair(true).withWaitTime(WAIT)).orElseThrow()) {
			assertThat(plain.tryAcquire(key(), Duration.ZERO, null)).isEmpty();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	// Read/write

	@Test
	void readersShareTheKeyAndAWriterExcludesThem() throws Exception {
		DefaultDistributeLock first = newLock();
		DefaultDistributeLock second = newLock();
		DefaultDistributeLock writer = newLock();
		LockHandle reading = first.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow();
		LockHandle alsoReading = second.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow();
		assertThat(reading.isHeld() && alsoReading.isHeld()).isTrue();
		assertThat(writer.tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE))).isEmpty();
		CompletableFuture<Optional<LockHandle>> writing = writer
			.tryAcquireAsync(LockRequest.of(key()).withMode(LockMode.WRITE).withWaitTime(WAIT));
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			// A writer waits, so a new reader does not pass it.
			Optional<LockHandle> late = newLock().tryAcquire(LockRequest.of(key()).withMode(LockMode.READ));
			late.ifPresent(LockHandle::close);
			return late.isEmpty();
		});
		reading.close();
		alsoReading.close();
		LockHandle written = writing.get(30, TimeUnit.SECONDS).orElseThrow();
		assertThat(first.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ))).isEmpty();
		written.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * The store tells the holders of a lock kind apart by their owner value: two claims
	 * of one key with one value chosen by the caller would share one entry, and the first
	 * release would end both. In one instance the second is refused at once, while the
	 * first holds or waits; the value is free again once the first is over.
	 */
	@Test
	void aSecondClaimOfAKeyWithTheOwnerValueOfAClaimThatHoldsOrWaitsIsRefused() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockRequest read = LockRequest.of(key()).withMode(LockMode.READ).withOwner("reader-1");
		try (LockHandle reading = lock.tryAcquire(read).orElseThrow()) {
			assertThatIllegalArgumentException().isThrownBy(() -> lock.tryAcquire(read))
				.withMessageContaining("already holds or waits for that key in this instance")
				.withMessageContaining("Give each claim its own value")
				.withMessageNotContaining("reader-1");
			assertThat(lock.tryAcquireAsync(read)).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(IllegalArgumentException.class);
			assertThat(reading.isHeld()).isTrue();
			assertThat(newLock().tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE))).isEmpty();
		}
		LockRequest fair = LockRequest.of(key()).withFair(true).withOwner("fair-1").withWaitTime(WAIT);
		LockHandle other = newLock().tryAcquire(LockRequest.of(key()).withFair(true)).orElseThrow();
		CompletableFuture<Optional<LockHandle>> waiting = lock.tryAcquireAsync(fair);
		// The claim is the instance's from the call on, before the store answers.
		assertThatIllegalArgumentException().isThrownBy(() -> lock.tryAcquire(fair.withWaitTime(Duration.ZERO)));
		assertThat(waiting).isNotDone();
		other.close();
		waiting.get(30, TimeUnit.SECONDS).orElseThrow().close();
		lock.tryAcquire(fair).orElseThrow().close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * A claim with the owner value of a lock whose release is still to be sent (kept for
	 * its minimum hold, or retried after a store failure) would be taken by the store for
	 * the old one, and ended by that release. It waits for the release or is refused;
	 * when it holds, it holds alone, with a fencing token of its own.
	 */
	@Test
	void aClaimWithTheOwnerValueOfALockWhoseReleaseIsPendingNeverSharesItsEntry() throws Exception {
		List<LockRequest> kinds = List.of(LockRequest.of(key()), LockRequest.of(key()).withFair(true),
				LockRequest.of(key()).withMode(LockMode.WRITE), LockRequest.of(key()).withMode(LockMode.READ),
				LockRequest.of(key()).withPermits(1));
		CountingLockBackend backend = CountingLockBackend.of(trackBackend(newBackend()));
		DefaultDistributeLock lock = closeAfterTest(new DefaultDistributeLock(backend));
		DefaultDistributeLock other = newLock();
		for (int i = 0; i < kinds.size(); i++) {
			LockRequest owned = kinds.get(i).withOwner("owner-" + i).withWaitTime(Duration.ofSeconds(5));
			LockRequest excluding = (kinds.get(i).mode() == LockMode.READ)
					? LockRequest.of(key()).withMode(LockMode.WRITE) : kinds.get(i).withOwner("other-" + i);
			LockHandle kept = lock.tryAcquire(owned.withMinimumHold(MINIMUM_HOLD)).orElseThrow();
			// The hold began before tryAcquire returned, so it ends before this.
			long keptUntil = System.nanoTime() + MINIMUM_HOLD.toNanos();
			kept.close();
			assertThat(isLockedInStore(key())).as(LockKind.of(owned).tag() + " lock kept for its minimum hold")
				.isTrue();
			assertHoldsAloneOrIsRefused(lock, other, owned, excluding, kept.fencingToken(), keptUntil,
					"after a minimum hold");
			await().atMost(Duration.ofSeconds(10)).until(() -> !isLockedInStore(key()));
			LockHandle failed = lock.tryAcquire(owned).orElseThrow();
			backend.failReleases = true;
			assertThatExceptionOfType(DistributeLockException.class).isThrownBy(failed::close);
			backend.failReleases = false;
			// Its first retry is sent 50 ms after the failure.
			assertHoldsAloneOrIsRefused(lock, other, owned, excluding, failed.fencingToken(), System.nanoTime(),
					"after a failed release");
			await().atMost(Duration.ofSeconds(10)).until(() -> !isLockedInStore(key()));
		}
	}

	/**
	 * A fair or write request with a wait of 0 that finds this instance's release of the
	 * key's lock on its way to the store waits for that release and holds, as a plain
	 * request does: the key is being given back, not busy.
	 */
	@Test
	void aZeroWaitFairOrWriteRequestTakesALockWhoseReleaseByThisInstanceIsInFlight() throws Exception {
		CountingLockBackend backend = countingBackend();
		DefaultDistributeLock lock = closeAfterTest(new DefaultDistributeLock(backend));
		for (LockRequest request : List.of(LockRequest.of(key()).withFair(true),
				LockRequest.of(key()).withMode(LockMode.WRITE))) {
			LockHandle held = lock.tryAcquire(request).orElseThrow();
			CompletableFuture<Void> send = backend.holdBackReleases();
			CompletableFuture<Void> releasing = held.releaseAsync();
			CompletableFuture<Optional<LockHandle>> next;
			try {
				next = lock.tryAcquireAsync(request);
				await("the zero-wait request waiting for the release in flight").during(Duration.ofMillis(200))
					.atMost(Duration.ofSeconds(5))
					.until(() -> !next.isDone() && isLockedInStore(key()));
			}
			finally {
				send.complete(null);
			}
			releasing.get(10, TimeUnit.SECONDS);
			next.get(10, TimeUnit.SECONDS).orElseThrow().close();
			await().atMost(Duration.ofSeconds(10)).until(() -> !isLockedInStore(key()));
		}
	}

	/**
	 * A reader, a writer or a permit holder kept for its minimum hold keeps the key for
	 * the rest of that hold, not for the longer lease it had: the shared lock word (the
	 * key's row) lasts only as long as the latest holder's lease.
	 */
	@Test
	void aLockKeptForItsMinimumHoldFreesTheKeyWhenTheHoldEndsNotWhenItsLeaseWould() throws Exception {
		Duration lease = Duration.ofSeconds(60);
		List<LockRequest> kinds = List.of(LockRequest.of(key() + ".read").withMode(LockMode.READ),
				LockRequest.of(key() + ".write").withMode(LockMode.WRITE),
				LockRequest.of(key() + ".permit").withPermits(1));
		for (LockRequest kind : kinds) {
			DefaultDistributeLock lock = closeAfterTest(
					new DefaultDistributeLock(trackBackend(newBackend()), lease, false, LockEventListener.NONE, null));
			lock.tryAcquire(kind.withMinimumHold(MINIMUM_HOLD)).orElseThrow().close();
			assertThat(isLockedInStore(kind.key())).as(LockKind.of(kind).tag() + " lock kept for its minimum hold")
				.isTrue();
			LockRequest excluding = (kind.mode() == LockMode.READ) ? kind.withMode(LockMode.WRITE) : kind;
			// Waits a third of the lease it had at most.
			assertThat(newLock().tryAcquire(excluding.withWaitTime(lease.dividedBy(3))))
				.as(LockKind.of(kind).tag() + " lock kept for a minimum hold of 0.5 s, with a lease of 60 s")
				.hasValueSatisfying(LockHandle::close);
		}
	}

	/**
	 * A non-blocking wait whose caller bounded it with {@code orTimeout} ends with the
	 * caller's future: it attempts no more, and its owner value is free at once.
	 */
	@Test
	void aNonBlockingWaitTimedOutByItsCallerEndsWithItsFuture() throws Exception {
		DefaultDistributeLock holder = newLock();
		CountingLockBackend waiterBackend = countingBackend();
		DefaultDistributeLock waiter = closeAfterTest(new DefaultDistributeLock(waiterBackend));
		LockRequest fair = LockRequest.of(key()).withFair(true);
		LockRequest owned = fair.withOwner("job-42");
		LockHandle held = holder.tryAcquire(fair).orElseThrow();
		try {
			CompletableFuture<Optional<LockHandle>> waiting = waiter.tryAcquireAsync(owned.withWaitTime(WAIT))
				.orTimeout(300, TimeUnit.MILLISECONDS);
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(TimeoutException.class);
			// The owner value stays claimed until the ended claim has left the store's
			// queue (one round trip after the future ended): a call with it meanwhile is
			// refused, as the queue's release by that value would end the new claim too.
			await().atMost(Duration.ofSeconds(5))
				.ignoreExceptionsMatching(AbstractLockKindsContractTests::refusedOwnerValue)
				.untilAsserted(() -> assertThat(waiter.tryAcquireAsync(owned).get(10, TimeUnit.SECONDS)).isEmpty());
			int attempts = waiterBackend.acquireAttempts.get();
			held.close();
			try (LockHandle next = holder.tryAcquire(fair.withWaitTime(WAIT)).orElseThrow()) {
				assertThat(next.isHeld()).isTrue();
			}
			await().during(Duration.ofMillis(500))
				.atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(waiterBackend.acquireAttempts).as("attempts of the ended wait")
					.hasValue(attempts));
		}
		finally {
			held.close();
		}
	}

	/**
	 * A reader or permit caller refused where such callers never queue leaves nothing of
	 * its claim in the store, so the engine sends no release to take it out of a queue: a
	 * refused call is one round trip. A store where they queue overrides
	 * {@link #readersAndPermitCallersQueue()}.
	 */
	@Test
	void aRefusedReaderOrPermitCallerSendsAReleaseOnlyWhereItQueued() throws Exception {
		DefaultDistributeLock holder = newLock();
		CountingLockBackend backend = countingBackend();
		DefaultDistributeLock caller = closeAfterTest(new DefaultDistributeLock(backend));
		LockRequest permit = LockRequest.of(key() + ".permit").withPermits(1);
		try (LockHandle writer = holder.tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE)).orElseThrow();
				LockHandle permitHolder = holder.tryAcquire(permit).orElseThrow()) {
			assertThat(caller.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ))).isEmpty();
			assertThat(caller.tryAcquire(permit)).isEmpty();
			assertThat(caller
				.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ).withWaitTime(Duration.ofMillis(100))))
				.isEmpty();
		}
		assertThat(backend.acquireAttempts).hasValueGreaterThanOrEqualTo(3);
		assertThat(backend.releases).as("releases sent by the refused calls")
			.hasValue(readersAndPermitCallersQueue() ? 3 : 0);
		assertThat(isLockedInStore(key())).isFalse();
		assertThat(caller.tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE))).isPresent()
			.get()
			.satisfies(LockHandle::close);
	}

	/**
	 * Whether a reader or permit caller that is refused keeps a place in the store's
	 * queue, which it must leave when it gives up.
	 */
	protected boolean readersAndPermitCallersQueue() {
		return false;
	}

	private static boolean refusedOwnerValue(Throwable failure) {
		Throwable refusal = (failure instanceof ExecutionException) ? failure.getCause() : failure;
		return refusal instanceof IllegalArgumentException
				&& String.valueOf(refusal.getMessage()).contains("already holds or waits for that key");
	}

	/**
	 * A minimum hold, or skip when busy, set on a multi-key request applies to each of
	 * its keys, whether the store takes them together or one after the other.
	 */
	@Test
	void aMultiKeyRequestsMinimumHoldAndSkipWhenBusyApplyToEachKey() throws Exception {
		List<String> outcomes = new CopyOnWriteArrayList<>();
		LockEventListener events = (key, name, backend) -> new LockTracker() {
			@Override
			public void notAcquired() {
				outcomes.add(key + " not acquired");
			}

			@Override
			public void skipped() {
				outcomes.add(key + " skipped");
			}
		};
		DefaultDistributeLock lock = closeAfterTest(new DefaultDistributeLock(trackBackend(newBackend()),
				DefaultDistributeLock.DEFAULT_WATCHDOG_LEASE, false, events, null));
		DefaultDistributeLock other = newLock();
		for (boolean mixed : List.of(false, true)) {
			String a = key() + (mixed ? ".mixed.a" : ".plain.a");
			String b = key() + (mixed ? ".mixed.b" : ".plain.b");
			LockRequest both = LockRequest.all(LockRequest.of(a),
					mixed ? LockRequest.of(b).withMode(LockMode.WRITE) : LockRequest.of(b));
			lock.tryAcquire(both.withMinimumHold(MINIMUM_HOLD)).orElseThrow().close();
			assertThat(isLockedInStore(a) && isLockedInStore(b))
				.as("both keys kept for the minimum hold of the request, %s", mixed ? "one by one" : "together")
				.isTrue();
			await().atMost(Duration.ofSeconds(10)).until(() -> !isLockedInStore(a) && !isLockedInStore(b));
			try (LockHandle held = other.tryAcquire(both.parts().get(1)).orElseThrow()) {
				outcomes.clear();
				assertThat(lock.tryAcquire(both.withSkipWhenBusy(true))).isEmpty();
				assertThat(outcomes).as("a busy multi-key request that skips, %s", mixed ? "one by one" : "together")
					.isNotEmpty()
					.allSatisfy((outcome) -> assertThat(outcome).endsWith(" skipped"));
			}
		}
	}

	/**
	 * Readers, or holders of two permits, of two instances that race on the first use of
	 * a key are both let in, with a wait of 0: neither meets a holder that excludes it.
	 */
	@Test
	void zeroWaitSharedClaimsOfTwoInstancesRacingOnAKeysFirstUseAreBothLetIn() throws Exception {
		DefaultDistributeLock[] instances = { newLock(), newLock() };
		for (int i = 0; i < 20; i++) {
			LockRequest request = (i % 2 == 0) ? LockRequest.of(key() + "." + i).withMode(LockMode.READ)
					: LockRequest.of(key() + "." + i).withPermits(2);
			CyclicBarrier start = new CyclicBarrier(instances.length);
			List<Future<Optional<LockHandle>>> claims = new ArrayList<>();
			for (DefaultDistributeLock instance : instances) {
				claims.add(this.callers.submit(() -> {
					start.await(10, TimeUnit.SECONDS);
					return instance.tryAcquire(request);
				}));
			}
			List<Optional<LockHandle>> taken = new ArrayList<>();
			for (Future<Optional<LockHandle>> claim : claims) {
				taken.add(claim.get(20, TimeUnit.SECONDS));
			}
			taken.forEach((handle) -> handle.ifPresent(LockHandle::close));
			assertThat(taken).as(LockKind.of(request).tag() + " claims racing on key " + i)
				.allSatisfy((handle) -> assertThat(handle).isPresent());
		}
	}

	/**
	 * Another instance that already waits when the holder's lease is cut to the rest of
	 * its minimum hold takes the key when that hold ends: it timed its wait by the longer
	 * lease, so the store must tell it of the shorter one, also when the cut came between
	 * its attempt and the start of its wait (the plain and the write lock here).
	 */
	@Test
	void aWaiterOfAnotherInstanceTakesTheKeyWhenTheMinimumHoldOfItsHolderEnds() throws Exception {
		Duration lease = Duration.ofSeconds(60);
		List<LockRequest> kinds = List.of(LockRequest.of(key() + ".plain"),
				LockRequest.of(key() + ".fair").withFair(true), LockRequest.of(key() + ".read").withMode(LockMode.READ),
				LockRequest.of(key() + ".write").withMode(LockMode.WRITE),
				LockRequest.of(key() + ".permit").withPermits(1));
		for (LockRequest kind : kinds) {
			CountingLockBackend waiterBackend = countingBackend();
			DefaultDistributeLock waiter = closeAfterTest(new DefaultDistributeLock(waiterBackend));
			DefaultDistributeLock holder = closeAfterTest(
					new DefaultDistributeLock(trackBackend(newBackend()), lease, false, LockEventListener.NONE, null));
			LockHandle held = holder.tryAcquire(kind.withMinimumHold(MINIMUM_HOLD)).orElseThrow();
			LockRequest excluding = (kind.mode() == LockMode.READ) ? kind.withMode(LockMode.WRITE) : kind;
			boolean cutBeforeTheWaitStarts = kind.mode() != LockMode.READ && !kind.fair() && kind.permits() == 0;
			CompletableFuture<Void> waitGo = cutBeforeTheWaitStarts ? waiterBackend.holdBackWaits()
					: CompletableFuture.completedFuture(null);
			Future<Optional<LockHandle>> waited = this.callers
				.submit(() -> waiter.tryAcquire(excluding.withWaitTime(lease.dividedBy(2))));
			assertThat(waiterBackend.waiting.await(20, TimeUnit.SECONDS)).isTrue();
			held.close();
			assertThat(isLockedInStore(kind.key())).as(LockKind.of(kind).tag() + " lock kept for its minimum hold")
				.isTrue();
			waitGo.complete(null);
			// Long before the waiter's own wait, or the lease it was told of, would end.
			assertThat(waited.get(lease.dividedBy(4).toSeconds(), TimeUnit.SECONDS))
				.as(LockKind.of(kind).tag() + " lock cut to a minimum hold of 0.5 s while another instance waited")
				.hasValueSatisfying(LockHandle::close);
		}
	}

	/**
	 * Waiters of other instances on a key kept for the rest of its holder's minimum hold
	 * wait for the end of that hold: told of the cut lease, each attempts a handful of
	 * times, not again and again until the hold ends, also when the attempts of the one
	 * reach the store while the other waits.
	 */
	@Test
	void waitersOnAKeyKeptForItsMinimumHoldAttemptOnlyAFewTimes() throws Exception {
		Duration lease = Duration.ofSeconds(60);
		List<LockRequest> kinds = List.of(LockRequest.of(key() + ".plain"),
				LockRequest.of(key() + ".fair").withFair(true), LockRequest.of(key() + ".read").withMode(LockMode.READ),
				LockRequest.of(key() + ".write").withMode(LockMode.WRITE),
				LockRequest.of(key() + ".permit").withPermits(1));
		for (LockRequest kind : kinds) {
			String tag = LockKind.of(kind).tag();
			List<CountingLockBackend> backends = List.of(countingBackend(), countingBackend());
			List<DefaultDistributeLock> waiters = backends.stream()
				.map((backend) -> closeAfterTest(new DefaultDistributeLock(backend)))
				.toList();
			// The waiters and the look into the store connected before the hold starts,
			// so that the waits begin and the look ends long before it ends: a cluster's
			// first call takes a few hundred milliseconds.
			for (int i = 0; i < waiters.size(); i++) {
				waiters.get(i).tryAcquire(LockRequest.of(key() + ".warm-up")).orElseThrow().close();
				backends.get(i).acquireAttempts.set(0);
			}
			assertThat(isLockedInStore(kind.key())).isFalse();
			DefaultDistributeLock holder = closeAfterTest(
					new DefaultDistributeLock(trackBackend(newBackend()), lease, false, LockEventListener.NONE, null));
			LockHandle held = holder.tryAcquire(kind.withMinimumHold(MINIMUM_HOLD)).orElseThrow();
			LockRequest excluding = (kind.mode() == LockMode.READ) ? kind.withMode(LockMode.WRITE) : kind;
			List<Future<Boolean>> waited = new ArrayList<>();
			for (int i = 0; i < waiters.size(); i++) {
				DefaultDistributeLock waiter = waiters.get(i);
				waited.add(this.callers
					.submit(() -> waiter.tryAcquire(excluding.withWaitTime(lease.dividedBy(2))).map((handle) -> {
						handle.close();
						return true;
					}).orElse(false)));
				assertThat(backends.get(i).waiting.await(20, TimeUnit.SECONDS)).isTrue();
			}
			held.close();
			assertThat(isLockedInStore(kind.key())).as(tag + " lock kept for its minimum hold").isTrue();
			for (Future<Boolean> taken : waited) {
				assertThat(taken.get(lease.dividedBy(4).toSeconds(), TimeUnit.SECONDS))
					.as(tag + " lock kept for a minimum hold of 0.5 s while other instances waited")
					.isTrue();
			}
			for (CountingLockBackend backend : backends) {
				assertThat(backend.acquireAttempts.get())
					.as(tag + " lock's waiter's attempts while the key was kept for a minimum hold of 0.5 s")
					.isLessThanOrEqualTo(6);
			}
		}
	}

	/**
	 * Asserts that a claim with the owner value of a lock whose release is pending is
	 * refused, or holds alone until well after {@code pendingUntil}
	 * ({@link System#nanoTime()}): the end of the old lock's minimum hold, or the failure
	 * of its release, retried after 50 ms.
	 */
	private void assertHoldsAloneOrIsRefused(DefaultDistributeLock lock, DefaultDistributeLock other, LockRequest owned,
			LockRequest excluding, long tokenBefore, long pendingUntil, String after) throws Exception {
		Optional<LockHandle> again;
		try {
			again = lock.tryAcquire(owned);
		}
		catch (IllegalArgumentException ex) {
			assertThat(ex).hasMessageContaining("is still to be sent").hasMessageContaining("its own value");
			return;
		}
		assertThat(again).as(LockKind.of(owned).tag() + " lock " + after).isPresent();
		try (LockHandle held = again.orElseThrow()) {
			assertThat(held.fencingToken()).isGreaterThan(tokenBefore);
			// Through the end of the minimum hold and the first release retries (50, 100
			// and 200 ms apart), the store holds the new claim.
			Duration watched = Duration.ofNanos(Math.max(0, pendingUntil - System.nanoTime())).plusMillis(500);
			await().during(watched)
				.atMost(watched.plusSeconds(5))
				.until(() -> held.isHeld()
						&& other.tryAcquire(excluding.withWaitTime(Duration.ZERO)).map(this::closed).orElse(true));
		}
	}

	private boolean closed(LockHandle taken) {
		taken.close();
		return false;
	}

	/**
	 * A lock of another kind that a multi-key request re-entered is released with the
	 * request's last hold as it was taken, not in the plain locks' shared release.
	 */
	@Test
	void aFairLockReenteredByAMultiKeyRequestIsReleasedWithTheRequestsLastHold() throws Exception {
		DefaultDistributeLock lock = newLock();
		String a = multiKey(0);
		String b = multiKey(1);
		LockHandle fair = lock.tryAcquire(LockRequest.of(a).withFair(true)).orElseThrow();
		LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b))).orElseThrow();
		fair.close();
		assertThat(isLockedInStore(a)).as("held by the multi-key request").isTrue();
		both.close();
		assertThat(isLockedInStore(a)).isFalse();
		assertThat(isLockedInStore(b)).isFalse();
		assertThat(lock.lostLockCount()).isZero();
		assertThat(newLock().tryAcquire(LockRequest.of(a).withFair(true))).hasValueSatisfying(LockHandle::close);
	}

	@Test
	void aReaderReentersAWriterReadsItsOwnKeyAndAReaderCannotUpgrade() throws Exception {
		DefaultDistributeLock lock = newLock();
		try (LockHandle read = lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow();
				LockHandle again = lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow()) {
			assertThat(again.isHeld()).isTrue();
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(() -> lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE).withWaitTime(WAIT)))
				.withMessageContaining("would deadlock");
		}
		try (LockHandle write = lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE)).orElseThrow();
				LockHandle read = lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow()) {
			assertThat(read.isHeld()).isTrue();
			assertThat(newLock().tryAcquire(LockRequest.of(key()).withMode(LockMode.READ))).isEmpty();
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Curator's {@code TestInterProcessReadWriteLock#testDowngrading} and
	 * {@code testContendingDowngrading}: the writer takes the read lock, then closes the
	 * write lock first, while writers of another instance and of another thread of its
	 * own wait. The read entry is still held, so neither gets in until it is closed.
	 */
	@Test
	void aWriterThatReadsItsKeyAndClosesTheWriteFirstKeepsOutOtherWritersUntilTheReadIsClosed() throws Exception {
		CountingLockBackend lockBackend = countingBackend();
		DefaultDistributeLock lock = closeAfterTest(new DefaultDistributeLock(lockBackend));
		LockRequest write = LockRequest.of(key()).withMode(LockMode.WRITE);
		LockHandle writing = lock.tryAcquire(write).orElseThrow();
		CountingLockBackend otherBackend = countingBackend();
		CompletableFuture<Optional<LockHandle>> otherWriter = closeAfterTest(new DefaultDistributeLock(otherBackend))
			.tryAcquireAsync(write.withWaitTime(WAIT));
		CompletableFuture<Optional<LockHandle>> sameInstanceWriter = CompletableFuture
			.supplyAsync(() -> Locks.tryAcquire(lock, write.withWaitTime(WAIT)), this.callers);
		assertThat(otherBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(lockBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		LockHandle reading = lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)).orElseThrow();
		writing.close();
		assertThat(reading.isHeld()).isTrue();
		assertThat(isLockedInStore(key())).isTrue();
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(5))
			.until(() -> !otherWriter.isDone() && !sameInstanceWriter.isDone());
		assertThat(newLock().tryAcquire(write)).isEmpty();
		reading.close();
		LockHandle first = CompletableFuture.anyOf(otherWriter, sameInstanceWriter)
			.thenApply((taken) -> ((Optional<?>) taken).map(LockHandle.class::cast).orElseThrow())
			.get(30, TimeUnit.SECONDS);
		assertThat(otherWriter.isDone() && sameInstanceWriter.isDone()).isFalse();
		first.close();
		CompletableFuture.allOf(otherWriter, sameInstanceWriter).get(30, TimeUnit.SECONDS);
		otherWriter.get().orElseThrow().close();
		sameInstanceWriter.get().orElseThrow().close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Curator's {@code TestInterProcessReadWriteLock#testThatDowngradingRespectsThreads}:
	 * reentrancy is per thread, so another thread of the writer's instance neither reads
	 * nor writes, and waits for the writer.
	 */
	@Test
	void anotherThreadOfTheWritersInstanceNeitherReadsNorWritesUntilTheWriterCloses() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockRequest read = LockRequest.of(key()).withMode(LockMode.READ);
		LockRequest write = LockRequest.of(key()).withMode(LockMode.WRITE);
		LockHandle writing = lock.tryAcquire(write).orElseThrow();
		assertThat(CompletableFuture.supplyAsync(() -> Locks.tryAcquire(lock, read), this.callers)
			.get(10, TimeUnit.SECONDS)).isEmpty();
		assertThat(CompletableFuture.supplyAsync(() -> Locks.tryAcquire(lock, write), this.callers)
			.get(10, TimeUnit.SECONDS)).isEmpty();
		CompletableFuture<Optional<LockHandle>> waitingReader = CompletableFuture
			.supplyAsync(() -> Locks.tryAcquire(lock, read.withWaitTime(WAIT)), this.callers);
		writing.close();
		LockHandle reading = waitingReader.get(30, TimeUnit.SECONDS).orElseThrow();
		assertThat(newLock().tryAcquire(read)).hasValueSatisfying(LockHandle::close);
		reading.close();
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Curator's {@code TestInterProcessSemaphore#testThreads} within one instance: each
	 * thread holds a permit of its own, a thread that re-enters still holds one, and a
	 * permit closed by another thread than its holder's is given back.
	 */
	@Test
	void threadsOfOneInstanceEachHoldAPermitAndAnyThreadMayGiveOneBack() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockRequest two = LockRequest.of(key()).withPermits(2);
		LockHandle first = lock.tryAcquire(two).orElseThrow();
		lock.tryAcquire(two).orElseThrow().close();
		LockHandle second = onANewThread(lock, two).orElseThrow();
		assertThat(second.fencingToken()).isNotEqualTo(first.fencingToken());
		assertThat(onANewThread(lock, two)).isEmpty();
		assertThat(newLock().tryAcquire(two)).isEmpty();
		first.close();
		assertThat(second.isHeld()).isTrue();
		CompletableFuture.runAsync(second::close, this.callers).get(10, TimeUnit.SECONDS);
		assertThat(isLockedInStore(key())).isFalse();
		try (LockHandle one = newLock().tryAcquire(two).orElseThrow();
				LockHandle other = newLock().tryAcquire(two).orElseThrow()) {
			assertThat(one.isHeld() && other.isHeld()).isTrue();
		}
	}

	/**
	 * Takes {@code request} on a thread that holds nothing yet, unlike a pooled thread
	 * whose earlier task may still hold the key.
	 */
	private static Optional<LockHandle> onANewThread(DefaultDistributeLock lock, LockRequest request) throws Exception {
		return CompletableFuture.supplyAsync(() -> Locks.tryAcquire(lock, request), (task) -> new Thread(task).start())
			.get(10, TimeUnit.SECONDS);
	}

	@Test
	void writersAreExclusiveUnderAFuzzOfThreadsAndInstances() throws Exception {
		assertExclusiveUnderFuzz(LockRequest.of(key()).withMode(LockMode.WRITE).withWaitTime(Duration.ofSeconds(60)));
	}

	@Test
	void fairLocksAreExclusiveUnderAFuzzOfThreadsAndInstances() throws Exception {
		assertExclusiveUnderFuzz(LockRequest.of(key()).withFair(true).withWaitTime(Duration.ofSeconds(60)));
	}

	private void assertExclusiveUnderFuzz(LockRequest request) throws Exception {
		DefaultDistributeLock[] instances = { newLock(), newLock() };
		int[] counter = { 0 };
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		List<Future<?>> workers = new ArrayList<>();
		for (DefaultDistributeLock lock : instances) {
			for (int t = 0; t < 3; t++) {
				workers.add(this.callers.submit(() -> {
					for (int i = 0; i < 15; i++) {
						try (LockHandle handle = lock.tryAcquire(request).orElseThrow()) {
							if (inside.incrementAndGet() != 1) {
								overlaps.incrementAndGet();
							}
							int read = counter[0];
							Thread.yield();
							counter[0] = read + 1;
							inside.decrementAndGet();
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(120, TimeUnit.SECONDS);
		}
		assertThat(overlaps.get()).isZero();
		assertThat(counter[0]).isEqualTo(2 * 3 * 15);
		assertThat(isLockedInStore(key())).isFalse();
	}

	// Permits

	@Test
	void nevermoreThanThePermittedHoldersAtOnce() throws Exception {
		int permits = 2;
		DefaultDistributeLock[] instances = { newLock(), newLock() };
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		List<Future<?>> workers = new ArrayList<>();
		for (DefaultDistributeLock lock : instances) {
			for (int t = 0; t < 3; t++) {
				workers.add(this.callers.submit(() -> {
					for (int i = 0; i < 10; i++) {
						try (LockHandle handle = lock
							.tryAcquire(LockRequest.of(key()).withPermits(permits).withWaitTime(Duration.ofSeconds(60)))
							.orElseThrow()) {
							most.accumulateAndGet(inside.incrementAndGet(), Math::max);
							Thread.yield();
							inside.decrementAndGet();
						}
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(120, TimeUnit.SECONDS);
		}
		assertThat(most.get()).isBetween(1, permits);
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Fencing tokens grow across every kind of lock taken on one key, one after the
	 * other, by two instances, and across a hand-over from one caller of an instance to
	 * the next: a resource fenced by the key rejects any earlier holder, whatever its
	 * kind.
	 */
	@Test
	void fencingTokensGrowAcrossEveryKindTakenOnAKey() throws Exception {
		DefaultDistributeLock one = newLock();
		DefaultDistributeLock two = newLock();
		List<LockRequest> kinds = List.of(LockRequest.of(key()), LockRequest.of(key()).withFair(true),
				LockRequest.of(key()).withMode(LockMode.WRITE), LockRequest.of(key()).withMode(LockMode.READ),
				LockRequest.of(key()).withPermits(2), LockRequest.of(key()));
		long previous = Long.MIN_VALUE;
		for (int i = 0; i < kinds.size() * 2; i++) {
			DefaultDistributeLock lock = (i % 2 == 0) ? one : two;
			LockRequest kind = kinds.get(i % kinds.size());
			try (LockHandle handle = lock.tryAcquire(kind.withWaitTime(Duration.ofSeconds(5))).orElseThrow()) {
				assertThat(handle.fencingToken()).as("%s after %s", kind, previous).isGreaterThan(previous);
				previous = handle.fencingToken();
			}
		}
		LockHandle held = one.tryAcquire(LockRequest.of(key())).orElseThrow();
		assertThat(held.fencingToken()).isGreaterThan(previous);
		CompletableFuture<Optional<LockHandle>> next = one
			.tryAcquireAsync(LockRequest.of(key()).withWaitTime(Duration.ofSeconds(10)));
		await().atMost(Duration.ofSeconds(10)).until(() -> one.waitingAtGate(key()) == 1);
		held.close();
		try (LockHandle handedOver = next.get(10, TimeUnit.SECONDS).orElseThrow()) {
			assertThat(handedOver.fencingToken()).isGreaterThan(held.fencingToken());
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void permitHoldersEachHaveAFencingTokenAndAThirdWaits() throws Exception {
		LockRequest two = LockRequest.of(key()).withPermits(2);
		try (LockHandle first = newLock().tryAcquire(two).orElseThrow();
				LockHandle second = newLock().tryAcquire(two).orElseThrow()) {
			assertThat(second.fencingToken()).isNotEqualTo(first.fencingToken());
			assertThat(newLock().tryAcquire(two)).isEmpty();
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(() -> newLock().tryAcquire(LockRequest.of(key()).withPermits(3)));
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	// Leases

	/**
	 * Redisson's lease tests of its kinds ({@code RedissonFairLockTest},
	 * {@code RedissonReadWriteLockTest#testExpireRead} and {@code testExpireWrite},
	 * {@code RedissonPermitExpirableSemaphoreTest#testExpire}): a holder whose fixed
	 * lease ran out lets the next caller in, and closing its handle late frees nothing of
	 * the next holder's.
	 */
	@Test
	protected void aHolderWhoseFixedLeaseRanOutLetsTheNextInAndItsLateCloseFreesNothing() throws Exception {
		Duration lease = Duration.ofMillis(300);
		LockRequest fair = LockRequest.of(key() + ".fair").withFair(true);
		LockRequest write = LockRequest.of(key() + ".write").withMode(LockMode.WRITE);
		LockRequest read = LockRequest.of(key() + ".read").withMode(LockMode.READ);
		LockRequest writeAfterRead = LockRequest.of(key() + ".read").withMode(LockMode.WRITE);
		LockRequest permit = LockRequest.of(key() + ".permit").withPermits(1);
		assertLateCloseFreesNothing(fair.withLeaseTime(lease), fair, fair);
		assertLateCloseFreesNothing(write.withLeaseTime(lease), write, write);
		assertLateCloseFreesNothing(read.withLeaseTime(lease), writeAfterRead, read);
		assertLateCloseFreesNothing(permit.withLeaseTime(lease), permit, permit);
	}

	private void assertLateCloseFreesNothing(LockRequest stale, LockRequest next, LockRequest refused)
			throws Exception {
		DefaultDistributeLock lock = newLock();
		LockHandle expiring = lock.tryAcquire(stale).orElseThrow();
		LockHandle taken = newLock().tryAcquire(next.withWaitTime(WAIT)).orElseThrow();
		assertThat(expiring.isHeld()).isFalse();
		expiring.close();
		assertThat(taken.isHeld()).as(next.key()).isTrue();
		assertThat(newLock().tryAcquire(refused)).as(next.key()).isEmpty();
		assertThat(lock.tryAcquire(refused)).as(next.key()).isEmpty();
		taken.close();
		assertThat(isLockedInStore(next.key())).as(next.key()).isFalse();
	}

	/**
	 * A reader whose fixed lease ran out, closed late, leaves the other readers holding:
	 * a writer still waits for them.
	 */
	@Test
	protected void aReaderWhoseFixedLeaseRanOutLeavesTheOtherReadersHolding() throws Exception {
		DefaultDistributeLock lock = newLock();
		LockRequest read = LockRequest.of(key()).withMode(LockMode.READ);
		LockHandle expiring = lock.tryAcquire(read.withLeaseTime(Duration.ofMillis(300))).orElseThrow();
		LockHandle reading = newLock().tryAcquire(read).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> !expiring.isHeld());
		expiring.close();
		assertThat(reading.isHeld()).isTrue();
		LockRequest write = LockRequest.of(key()).withMode(LockMode.WRITE);
		assertThat(newLock().tryAcquire(write.withWaitTime(Duration.ofMillis(500)))).isEmpty();
		reading.close();
		assertThat(newLock().tryAcquire(write)).hasValueSatisfying(LockHandle::close);
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * Redisson's {@code RedissonReadWriteLockTest#testReadLockLeaseTimeout} the other way
	 * round: a later shared holder with a shorter fixed lease runs out, and the earlier
	 * one, renewed by the watchdog, still keeps out writers, plain locks and a permit too
	 * many.
	 */
	@Test
	protected void aLaterSharedHolderWithAShorterLeaseRunsOutAndTheEarlierStillHolds() throws Exception {
		LockRequest read = LockRequest.of(key() + ".read").withMode(LockMode.READ);
		LockRequest permit = LockRequest.of(key() + ".permits").withPermits(2);
		for (LockRequest shared : List.of(read, permit)) {
			LockHandle earlier = newLock().tryAcquire(shared).orElseThrow();
			LockHandle later = newLock().tryAcquire(shared.withLeaseTime(Duration.ofMillis(300))).orElseThrow();
			await().atMost(Duration.ofSeconds(10)).until(() -> !later.isHeld());
			// Past the later lease as the store times it too: its place is free again.
			Optional<LockHandle> again = newLock().tryAcquire(shared.withWaitTime(Duration.ofSeconds(10)));
			assertThat(again).as(shared.key()).isPresent();
			again.get().close();
			assertThat(earlier.isHeld()).as(shared.key()).isTrue();
			assertThat(isLockedInStore(shared.key())).as(shared.key()).isTrue();
			if (shared == permit) {
				try (LockHandle last = newLock().tryAcquire(permit).orElseThrow()) {
					assertNotTaken(permit);
					assertNotTaken(LockRequest.of(shared.key()));
				}
			}
			else {
				assertNotTaken(read.withMode(LockMode.WRITE));
				assertNotTaken(LockRequest.of(shared.key()));
			}
			later.close();
			earlier.close();
			assertThat(isLockedInStore(shared.key())).as(shared.key()).isFalse();
		}
	}

	/** A request that must be refused, at once or once its short wait is over. */
	private void assertNotTaken(LockRequest request) throws Exception {
		try {
			Optional<LockHandle> taken = newLock().tryAcquire(request.withWaitTime(Duration.ofMillis(300)));
			taken.ifPresent(LockHandle::close);
			assertThat(taken).as(request.key()).isEmpty();
		}
		catch (LockKindConflictException ex) {
			assertThat(ex).hasMessageContaining(request.key());
		}
	}

	/**
	 * Redisson's {@code RedissonReadWriteLockTest#testReadLockExpirationRenewal}: the
	 * watchdog keeps a reader (or a permit holder) past many short leases after the other
	 * shared holder has left, and stops renewing it once it is closed.
	 */
	@Test
	void theWatchdogKeepsASharedHolderAfterTheOtherLeavesAndStopsAtItsRelease() throws Exception {
		LockRequest read = LockRequest.of(key() + ".read").withMode(LockMode.READ);
		LockRequest permit = LockRequest.of(key() + ".permits").withPermits(2);
		assertRenewedAfterTheOtherLeaves(read, LockRequest.of(read.key()).withMode(LockMode.WRITE));
		assertRenewedAfterTheOtherLeaves(permit, permit);
	}

	private void assertRenewedAfterTheOtherLeaves(LockRequest shared, LockRequest excluded) throws Exception {
		Duration shortLease = Duration.ofMillis(600);
		CountingLockBackend backend = countingBackend();
		DefaultDistributeLock staying = closeAfterTest(
				new DefaultDistributeLock(backend, shortLease, false, LockEventListener.NONE, null));
		DefaultDistributeLock leaving = closeAfterTest(
				new DefaultDistributeLock(trackBackend(newBackend()), shortLease, false, LockEventListener.NONE, null));
		LockHandle stays = staying.tryAcquire(shared).orElseThrow();
		LockHandle leaves = leaving.tryAcquire(shared).orElseThrow();
		leaves.close();
		// The permit left is taken again, so that one more must be refused.
		Optional<LockHandle> refilled = (shared.permits() > 1) ? newLock().tryAcquire(shared) : Optional.empty();
		assertThat(refilled.isPresent()).isEqualTo(shared.permits() > 1);
		// Two and a half short leases: the other holder's lease, which the store took for
		// the key's, has run out, and only renewals keep this one.
		await().during(Duration.ofMillis(1500))
			.atMost(Duration.ofSeconds(4))
			.pollInterval(Duration.ofMillis(300))
			.until(() -> stays.isHeld() && isLockedInStore(shared.key()) && absent(newLock().tryAcquire(excluded)));
		assertThat(staying.lostLockCount()).as(shared.key()).isZero();
		stays.close();
		refilled.ifPresent(LockHandle::close);
		int renewalsAtRelease = backend.renewals.get();
		// Three and a half ticks of the watchdog (a third of the short lease). A tick
		// that picked the holder up just before close() may still send its renewal,
		// which the store refuses: one more, and no further ones.
		await().during(Duration.ofMillis(700))
			.atMost(Duration.ofSeconds(3))
			.until(() -> backend.renewals.get() <= renewalsAtRelease + 1);
		assertThat(isLockedInStore(shared.key())).as(shared.key()).isFalse();
	}

	private static boolean absent(Optional<LockHandle> handle) {
		handle.ifPresent(LockHandle::close);
		return handle.isEmpty();
	}

	// Kinds

	@Test
	void aKeyHeldAsOneKindIsRefusedAtOnceAsAnother() throws Exception {
		try (LockHandle held = newLock().tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(
						() -> newLock().tryAcquire(LockRequest.of(key()).withMode(LockMode.READ).withWaitTime(WAIT)))
				.withMessageContaining(key())
				.withMessageContaining("as an exclusive");
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * The message names both kinds as {@link LockKind#withArticle()} does, in the same
	 * words on every store, so that a log search for one conflict finds it on any of
	 * them.
	 */
	@Test
	void aKeyHeldAsPermitsIsRefusedAsAWriteLockByAnotherInstanceNamingBothKindsAlike() throws Exception {
		try (LockHandle held = newLock().tryAcquire(LockRequest.of(key()).withPermits(3)).orElseThrow()) {
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(
						() -> newLock().tryAcquire(LockRequest.of(key()).withMode(LockMode.WRITE).withWaitTime(WAIT)))
				.withMessageContaining(key())
				.withMessageContaining(" as a 3-permit lock ")
				.withMessageContaining(" asked for as a write lock");
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	/**
	 * A conflict is only ever with a holder or waiter still in the store: once every
	 * holder of one kind has closed its handle, another instance takes the key as another
	 * kind at once, with a wait of 0, whichever kind leaves and whichever comes, also
	 * when shared holders of two instances leave together.
	 */
	@Test
	void aKeyWhoseHoldersOfOneKindHaveAllClosedIsTakenAtOnceAsAnotherKindByAnotherInstance() throws Exception {
		DefaultDistributeLock[] instances = { newLock(), newLock(), newLock() };
		LockRequest permits3 = LockRequest.of(key()).withPermits(3);
		LockRequest permits2 = LockRequest.of(key()).withPermits(2);
		LockRequest read = LockRequest.of(key()).withMode(LockMode.READ);
		LockRequest write = LockRequest.of(key()).withMode(LockMode.WRITE);
		LockRequest fair = LockRequest.of(key()).withFair(true);
		LockRequest plain = LockRequest.of(key());
		List<List<LockRequest>> rounds = List.of(List.of(permits3, permits3), List.of(write), List.of(permits3),
				List.of(read, read), List.of(plain), List.of(read), List.of(fair), List.of(permits2, permits2),
				List.of(read, read), List.of(permits3, permits3), List.of(plain), List.of(write), List.of(fair),
				List.of(permits2), List.of(write), List.of(permits3, permits3), List.of(fair), List.of(read, read),
				List.of(permits2, permits2), List.of(plain));
		int next = 0;
		for (int round = 0; round < rounds.size() * 2; round++) {
			List<LockRequest> holders = rounds.get(round % rounds.size());
			String after = LockKind.of(rounds.get((round + rounds.size() - 1) % rounds.size()).get(0)).tag();
			List<LockHandle> held = new ArrayList<>();
			for (int i = 0; i < holders.size(); i++) {
				DefaultDistributeLock instance = instances[(next + i) % instances.length];
				String claim = "round " + round + ": " + LockKind.of(holders.get(i)).tag() + " after " + after;
				try {
					held.add(instance.tryAcquire(holders.get(i))
						.orElseThrow(() -> new AssertionError(claim + ", refused as busy")));
				}
				catch (LockKindConflictException ex) {
					throw new AssertionError(claim + ", refused as a conflict", ex);
				}
			}
			held.forEach(LockHandle::close);
			// The next round starts on an instance that did not hold in this one.
			next = (next + holders.size()) % instances.length;
		}
		assertThat(isLockedInStore(key())).isFalse();
	}

	@Test
	void aKeyThisThreadHoldsAsOneKindIsRefusedAtOnceAsAnotherNamingBoth() throws Exception {
		DefaultDistributeLock lock = newLock();
		try (LockHandle held = lock.tryAcquire(key(), Duration.ZERO, null).orElseThrow()) {
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(() -> lock.tryAcquire(LockRequest.of(key()).withMode(LockMode.READ)))
				.withMessageContaining("held by this thread as an exclusive lock, and was asked for as a read lock");
		}
	}

	@Test
	void badKindsAreRefusedWithAClearMessage() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockRequest.of(key()).withPermits(0))
			.withMessageContaining("permits must be at least 1");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> newLock().tryAcquire(LockRequest.of(key()).withPermits(2).withMode(LockMode.READ)))
			.withMessageContaining("permits cannot be combined");
		assertThatIllegalArgumentException().isThrownBy(LockRequest::all).withMessageContaining("at least one key");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> LockRequest.all(LockRequest.of(key()), LockRequest.of(key())))
			.withMessageContaining("comes twice");
	}

	// Multi-key

	/**
	 * Redisson's {@code RedissonMultiLockTest} with a lease: every key of a multi-key
	 * request with a fixed lease runs out with it, another instance takes one of them,
	 * and closing the combined handle late frees nothing of that instance's; whether the
	 * keys were taken together or one after the other.
	 */
	@Test
	protected void aMultiKeyRequestWhoseFixedLeaseRanOutFreesNothingOfTheNextHolderWhenClosedLate() throws Exception {
		Duration lease = Duration.ofMillis(300);
		String a = multiKey(0);
		String b = multiKey(1);
		String c = multiKey(2);
		assertMultiKeyLateCloseFreesNothing(LockRequest.all(LockRequest.of(a), LockRequest.of(b)).withLeaseTime(lease),
				LockRequest.of(b));
		assertMultiKeyLateCloseFreesNothing(
				LockRequest.all(LockRequest.of(a), LockRequest.of(c).withMode(LockMode.WRITE)).withLeaseTime(lease),
				LockRequest.of(c).withMode(LockMode.WRITE));
	}

	private void assertMultiKeyLateCloseFreesNothing(LockRequest all, LockRequest next) throws Exception {
		DefaultDistributeLock lock = newLock();
		LockHandle expiring = lock.tryAcquire(all).orElseThrow();
		DefaultDistributeLock other = newLock();
		LockHandle taken = other.tryAcquire(next.withWaitTime(WAIT)).orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> !expiring.isHeld());
		expiring.close();
		assertThat(taken.isHeld()).as(next.key()).isTrue();
		assertThat(isLockedInStore(next.key())).as(next.key()).isTrue();
		assertThat(newLock().tryAcquire(next)).as(next.key()).isEmpty();
		assertThat(lock.heldLocks()).isEmpty();
		taken.close();
		for (String key : all.key().split(",")) {
			assertThat(isLockedInStore(key)).as(key).isFalse();
		}
	}

	@Test
	void multiKeyIsAllOrNothing() throws Exception {
		DefaultDistributeLock lock = newLock();
		String a = key() + ".a";
		String b = key() + ".b";
		try (LockHandle held = newLock().tryAcquire(b, Duration.ZERO, null).orElseThrow()) {
			assertThat(lock
				.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b)).withWaitTime(Duration.ofMillis(200))))
				.isEmpty();
			assertThat(isLockedInStore(a)).isFalse();
		}
		try (LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of(b), LockRequest.of(a).withFair(true)))
			.orElseThrow()) {
			assertThat(isLockedInStore(a) && isLockedInStore(b)).isTrue();
			assertThat(both.isHeld()).isTrue();
		}
		assertThat(isLockedInStore(a) || isLockedInStore(b)).isFalse();
	}

	@Test
	void overlappingMultiKeySetsFromManyThreadsNeverDeadlockNorLeaveAKeyHeld() throws Exception {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			keys.add(multiKey(i));
		}
		CountingLockBackend[] backends = { countingBackend(), countingBackend() };
		DefaultDistributeLock[] instances = { closeAfterTest(new DefaultDistributeLock(backends[0])),
				closeAfterTest(new DefaultDistributeLock(backends[1])) };
		List<Future<?>> workers = new ArrayList<>();
		for (DefaultDistributeLock lock : instances) {
			for (int t = 0; t < 3; t++) {
				workers.add(this.callers.submit(() -> {
					for (int i = 0; i < 10; i++) {
						List<String> shuffled = new ArrayList<>(keys);
						Collections.shuffle(shuffled, ThreadLocalRandom.current());
						LockRequest request = LockRequest
							.all(shuffled.subList(0, 3).stream().map(LockRequest::of).toArray(LockRequest[]::new))
							.withWaitTime(Duration.ofSeconds(60));
						lock.tryAcquire(request).orElseThrow().close();
					}
					return null;
				}));
			}
		}
		for (Future<?> worker : workers) {
			worker.get(120, TimeUnit.SECONDS);
		}
		for (String each : keys) {
			assertThat(isLockedInStore(each)).as(each).isFalse();
		}
		// A backend that takes these keys together does, in one call per attempt; the
		// others take them one after the other.
		boolean batched = backends[0].batches(keys.stream().map((each) -> new LockBackend.Claim(each, "o")).toList());
		for (CountingLockBackend backend : backends) {
			assertThat(backend.acquireAllAttempts.get() > 0).isEqualTo(batched);
			assertThat(backend.acquireAttempts.get() == 0).isEqualTo(batched);
		}
	}

	@Test
	void eachKeyOfAMultiKeyRequestHasAFencingTokenThatGrowsWithTheKeysSingleAcquisitions() throws Exception {
		DefaultDistributeLock lock = newLock();
		String a = multiKey(0);
		String b = multiKey(1);
		LockRequest both = LockRequest.all(LockRequest.of(b), LockRequest.of(a));
		Map<String, Long> first = tokens(lock, both);
		long single;
		try (LockHandle handle = lock.tryAcquire(a, Duration.ZERO, null).orElseThrow()) {
			single = handle.fencingToken();
		}
		Map<String, Long> second = tokens(lock, both);
		assertThat(single).isGreaterThan(first.get(a));
		assertThat(second.get(a)).isGreaterThan(single);
		assertThat(second.get(b)).isGreaterThan(first.get(b));
		assertThat(isLockedInStore(a) || isLockedInStore(b)).isFalse();
	}

	/** Takes the keys, and gives each key's fencing token, read from its own handle. */
	private Map<String, Long> tokens(DefaultDistributeLock lock, LockRequest request) throws Exception {
		Map<String, Long> tokens = new HashMap<>();
		try (LockHandle handle = lock.tryAcquire(request).orElseThrow()) {
			List<LockHandle> keys = ((MultiKeyHandle) handle).handles();
			assertThat(keys).extracting(LockHandle::key)
				.containsExactlyElementsOf(request.parts().stream().map(LockRequest::key).sorted().toList());
			for (LockHandle each : keys) {
				assertThat(isLockedInStore(each.key())).isTrue();
				tokens.put(each.key(), each.fencingToken());
			}
			assertThat(handle.fencingToken()).isEqualTo(Collections.max(tokens.values()));
		}
		return tokens;
	}

	@Test
	void aMultiKeyReleaseFreesEveryKeyAndWakesTheWaitersOfEach() throws Exception {
		String a = multiKey(0);
		String b = multiKey(1);
		LockHandle both = newLock().tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b))).orElseThrow();
		CountingLockBackend waitingForA = countingBackend();
		CountingLockBackend waitingForB = countingBackend();
		CompletableFuture<Optional<LockHandle>> first = closeAfterTest(new DefaultDistributeLock(waitingForA))
			.tryAcquireAsync(LockRequest.of(a).withWaitTime(WAIT));
		CompletableFuture<Optional<LockHandle>> second = closeAfterTest(new DefaultDistributeLock(waitingForB))
			.tryAcquireAsync(LockRequest.of(b).withWaitTime(WAIT));
		assertThat(waitingForA.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(waitingForB.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		both.close();
		assertThat(both.isHeld()).isFalse();
		// Woken by the release, long before the holder's lease would have run out.
		LockHandle takenA = first.get(5, TimeUnit.SECONDS).orElseThrow();
		LockHandle takenB = second.get(5, TimeUnit.SECONDS).orElseThrow();
		takenA.close();
		takenB.close();
		assertThat(isLockedInStore(a) || isLockedInStore(b)).isFalse();
	}

	/**
	 * A second releaseAsync() of a multi-key handle while its release is on its way to
	 * the store completes with that release, not before: its caller too may count on the
	 * keys being free.
	 */
	@Test
	void aSecondReleaseAsyncOfAMultiKeyHandleCompletesWithTheReleaseInFlight() throws Exception {
		String a = multiKey(0);
		String b = multiKey(1);
		CountingLockBackend backend = countingBackend();
		DefaultDistributeLock lock = closeAfterTest(new DefaultDistributeLock(backend));
		LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b))).orElseThrow();
		CompletableFuture<Void> send = backend.holdBackReleases();
		CompletableFuture<Void> releasing = both.releaseAsync();
		CompletableFuture<Void> releasingAgain = both.releaseAsync();
		try {
			assertThat(releasingAgain).as("a second releaseAsync() with the release held back").isNotDone();
		}
		finally {
			// Else the lock service, closed after the test, waits for it.
			send.complete(null);
		}
		releasingAgain.get(10, TimeUnit.SECONDS);
		assertThat(isLockedInStore(a) || isLockedInStore(b)).as("a key locked when releaseAsync() completed").isFalse();
		assertThat(releasing).succeedsWithin(Duration.ofSeconds(10));
	}

	/**
	 * The future releaseAsync() returns is the caller's: cancelling it (as a cancelled
	 * subscription does) or completing it (orTimeout) while the release of a multi-key
	 * handle is on its way to the store stops no release, of keys taken in one call or
	 * one after the other.
	 */
	@Test
	void aMultiKeyReleaseAsyncWhoseFutureItsCallerCancelsStillReleasesEveryKey() throws Exception {
		String a = multiKey(0);
		String b = multiKey(1);
		CountingLockBackend backend = countingBackend();
		DefaultDistributeLock lock = closeAfterTest(new DefaultDistributeLock(backend));
		for (LockRequest request : List.of(LockRequest.all(LockRequest.of(a), LockRequest.of(b)),
				LockRequest.all(LockRequest.of(a), LockRequest.of(b).withMode(LockMode.READ)))) {
			LockHandle both = lock.tryAcquire(request).orElseThrow();
			CompletableFuture<Void> send = backend.holdBackReleases();
			CompletableFuture<Void> releasing = both.releaseAsync();
			releasing.cancel(false);
			send.complete(null);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(isLockedInStore(a) || isLockedInStore(b))
					.as("a key of %s locked after its cancelled releaseAsync()", request.key())
					.isFalse());
			// A key leaves this instance's table once the store's answer to its release
			// has come, on the thread that got it: just after the store freed it.
			await().atMost(Duration.ofSeconds(10)).until(() -> lock.heldLocks().isEmpty());
			both.close();
		}
	}

	@Test
	void aMultiKeyRequestReentersTheKeysItsThreadHoldsAndKeepsThemAfterward() throws Exception {
		DefaultDistributeLock lock = newLock();
		String a = multiKey(0);
		String b = multiKey(1);
		try (LockHandle heldA = lock.tryAcquire(a, Duration.ZERO, null).orElseThrow()) {
			try (LockHandle both = lock.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b)))
				.orElseThrow()) {
				assertThat(((MultiKeyHandle) both).handles().get(0).fencingToken()).isEqualTo(heldA.fencingToken());
				assertThat(isLockedInStore(b)).isTrue();
			}
			assertThat(heldA.isHeld()).isTrue();
			assertThat(isLockedInStore(a)).isTrue();
			assertThat(isLockedInStore(b)).isFalse();
		}
		assertThat(isLockedInStore(a)).isFalse();
	}

	@Test
	void aMultiKeyRequestThatTimesOutIsInterruptedOrIsCancelledLeavesNothing() throws Exception {
		String a = multiKey(0);
		String b = multiKey(1);
		LockRequest both = LockRequest.all(LockRequest.of(a), LockRequest.of(b));
		LockHandle heldB = newLock().tryAcquire(b, Duration.ZERO, null).orElseThrow();
		DefaultDistributeLock lock = newLock();
		assertThat(lock.tryAcquire(both.withWaitTime(Duration.ofMillis(300)))).isEmpty();
		assertThat(isLockedInStore(a)).isFalse();
		// Interrupted while it waits for b.
		CountingLockBackend interruptedBackend = countingBackend();
		DefaultDistributeLock interruptedLock = closeAfterTest(new DefaultDistributeLock(interruptedBackend));
		AtomicReference<Thread> caller = new AtomicReference<>();
		Future<Object> interrupted = this.callers.submit(() -> {
			caller.set(Thread.currentThread());
			try {
				return interruptedLock.tryAcquire(both.withWaitTime(WAIT));
			}
			catch (InterruptedException ex) {
				return ex;
			}
		});
		assertThat(interruptedBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		caller.get().interrupt();
		assertThat(interrupted.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		assertThat(isLockedInStore(a)).isFalse();
		// Cancelled while it waits for b.
		CountingLockBackend asyncBackend = countingBackend();
		CompletableFuture<Optional<LockHandle>> cancelled = closeAfterTest(new DefaultDistributeLock(asyncBackend))
			.tryAcquireAsync(both.withWaitTime(WAIT));
		assertThat(asyncBackend.waiting.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(cancelled.cancel(false)).isTrue();
		heldB.close();
		// Nobody takes the keys once b is free: neither request is still after them.
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(5))
			.until(() -> !isLockedInStore(a) && !isLockedInStore(b));
		// Nothing is left in this JVM either: the keys can be taken at once.
		lock.tryAcquire(both).orElseThrow().close();
		assertThat(isLockedInStore(a) || isLockedInStore(b)).isFalse();
	}

	@Test
	protected void aMultiKeyRequestWithAKeyHeldAsAnotherKindFailsAndTakesNoKey() throws Exception {
		String a = multiKey(0);
		String b = multiKey(1);
		try (LockHandle reading = newLock().tryAcquire(LockRequest.of(b).withMode(LockMode.READ)).orElseThrow()) {
			assertThatExceptionOfType(LockKindConflictException.class)
				.isThrownBy(() -> newLock()
					.tryAcquire(LockRequest.all(LockRequest.of(a), LockRequest.of(b)).withWaitTime(WAIT)))
				.withMessageContaining(b);
			assertThat(isLockedInStore(a)).isFalse();
		}
		assertThat(isLockedInStore(a) || isLockedInStore(b)).isFalse();
	}

	/**
	 * The key of a multi-key test: {@code key() + "." + i} unless a store needs the keys
	 * of one request shaped otherwise to take them together.
	 */
	protected String multiKey(int i) {
		return key() + "." + i;
	}

}
