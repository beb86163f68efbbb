package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.reactive.DefaultReactiveDistributeLock;
import io.github.distributelock.reactive.ReactiveDistributeLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The non-blocking API ({@code tryAcquireAsync}, {@code releaseAsync}) and its Reactor
 * adapter, with futures cancelled, timed out or completed by their callers and
 * subscriptions disposed at random points of their calls, for every kind of lock and for
 * multi-key requests (plain keys, which a store may take in one call, and mixed kinds,
 * taken one after the other), by callers of two instances. What the InterruptFuzz of the
 * contract tests does for interrupts of blocking callers.
 * <p>
 * Once every call has settled and every handle obtained was released: nothing is left in
 * the store for the keys, read from the store itself; nothing is held or waits at a gate
 * in either instance; each instance and a new one take every key at once with a wait of
 * 0; no call that its caller did not end stayed incomplete past its deadline plus
 * {@link #SETTLE_BOUND}; and no kind ever had more holders than it admits.
 */
public abstract class AbstractAsyncCancelFuzzTests extends AbstractStoreContractTests {

	private static final Log logger = LogFactory.getLog(AbstractAsyncCancelFuzzTests.class);

	/** At most this many rounds ... */
	private static final int ROUNDS = Integer.getInteger("distributelock.test.cancel-fuzz-rounds", 400);

	/** ... and no new round after this long. */
	private static final Duration WITHIN = Duration
		.ofSeconds(Long.getLong("distributelock.test.cancel-fuzz-seconds", 5));

	private static final int CALLS_PER_ROUND = 10;

	/** How long past its deadline a call may take to end, on a loaded machine. */
	private static final Duration SETTLE_BOUND = Duration.ofSeconds(5);

	/** A writer counts this much among a read/write key's holders, a reader one. */
	private static final int WRITER = 1_000;

	private final ScheduledExecutorService enders = Executors.newScheduledThreadPool(2);

	@AfterEach
	void stopEnders() {
		this.enders.shutdownNow();
	}

	/**
	 * The keys among {@code keys} of which something is left in the store: a holder, a
	 * queue entry, a waiter's lease. By default the ones {@link #isLockedInStore} finds
	 * held; a store that keeps queue entries apart from the lock checks those too.
	 */
	protected List<String> leftInStore(List<String> keys) {
		return keys.stream().filter(this::isLockedInStore).toList();
	}

	@Test
	void nonBlockingCallsEndedByTheirCallersAnywhereLeaveNothingBehind() throws Exception {
		long seed = Long.getLong("distributelock.test.cancel-fuzz-seed", System.nanoTime());
		SplittableRandom random = new SplittableRandom(seed);
		List<Key> keys = List.of(new Key(key() + ".plain1", Kind.PLAIN), new Key(key() + ".plain2", Kind.PLAIN),
				new Key(key() + ".fair", Kind.FAIR), new Key(key() + ".rw", Kind.READ_WRITE),
				new Key(key() + ".permits", Kind.PERMITS));
		List<DefaultDistributeLock> instances = List.of(newLock(), newLock());
		Fuzz fuzz = new Fuzz(seed);
		long end = System.nanoTime() + WITHIN.toNanos();
		int round = 0;
		for (; round < ROUNDS && System.nanoTime() - end < 0; round++) {
			List<Call> calls = new ArrayList<>();
			for (int i = 0; i < CALLS_PER_ROUND; i++) {
				DefaultDistributeLock lock = instances.get(random.nextInt(instances.size()));
				LockRequest request = request(random, keys);
				calls.add(switch (random.nextInt(3)) {
					case 0 -> fuzz.reactiveTryAcquire(lock, request, random);
					case 1 -> fuzz.reactiveWithLock(lock, request, random);
					default -> fuzz.future(lock, request, random);
				});
			}
			for (Call call : calls) {
				fuzz.awaitSettled(call);
			}
		}
		logger.info("Seed " + seed + ": " + round + " rounds, " + fuzz.taken + " locks taken, " + fuzz.endedByCaller
				+ " calls ended by their callers");
		String seedAndCounts = "seed " + seed + ", " + fuzz.taken + " taken, " + fuzz.endedByCaller + " ended";
		assertThat(fuzz.problems).as(seedAndCounts).isEmpty();
		List<String> names = keys.stream().map(Key::name).toList();
		await("nothing of %s left in the store (%s)".formatted(names, seedAndCounts)).atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(leftInStore(names)).as(seedAndCounts).isEmpty());
		for (DefaultDistributeLock lock : instances) {
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(lock.heldLocks()).as(seedAndCounts).isEmpty());
			for (String name : names) {
				assertThat(lock.waitingAtGate(name)).as("%s: %s", name, seedAndCounts).isZero();
			}
		}
		List<DefaultDistributeLock> takers = new ArrayList<>(instances);
		takers.add(newLock());
		for (DefaultDistributeLock lock : takers) {
			LockRequest every = LockRequest
				.all(keys.stream().map((key) -> key.request(random)).toArray(LockRequest[]::new));
			assertThat(lock.tryAcquire(every)).as(seedAndCounts).hasValueSatisfying(LockHandle::close);
			for (Key key : keys) {
				assertThat(lock.tryAcquire(key.request(random))).as("%s: %s", key.name(), seedAndCounts)
					.hasValueSatisfying(LockHandle::close);
			}
		}
		assertThat(fuzz.taken.get()).as(seedAndCounts).isPositive();
		assertThat(fuzz.endedByCaller.get()).as(seedAndCounts).isPositive();
	}

	private DefaultDistributeLock newLock() {
		return closeAfterTest(new DefaultDistributeLock(trackBackend(newBackend())));
	}

	/**
	 * A request for one key, for the plain keys together (which a store may take in one
	 * call), or for two or three keys of any kinds, with a wait from none to a second.
	 */
	private static LockRequest request(SplittableRandom random, List<Key> keys) {
		Duration wait = switch (random.nextInt(4)) {
			case 0 -> Duration.ZERO;
			case 1 -> Duration.ofMillis(20);
			case 2 -> Duration.ofMillis(200);
			default -> Duration.ofSeconds(1);
		};
		int shape = random.nextInt(10);
		LockRequest request;
		if (shape < 6) {
			request = keys.get(random.nextInt(keys.size())).request(random);
		}
		else if (shape < 8) {
			request = LockRequest.all(keys.get(0).request(random), keys.get(1).request(random));
		}
		else {
			List<Key> shuffled = new ArrayList<>(keys);
			for (int i = shuffled.size() - 1; i > 0; i--) {
				shuffled.set(i, shuffled.set(random.nextInt(i + 1), shuffled.get(i)));
			}
			int size = 2 + random.nextInt(2);
			request = LockRequest
				.all(shuffled.subList(0, size).stream().map((key) -> key.request(random)).toArray(LockRequest[]::new));
		}
		return request.withWaitTime(wait);
	}

	private enum Kind {

		PLAIN(1), FAIR(1), READ_WRITE(WRITER), PERMITS(2);

		/** The most the holders may count; see {@link Fuzz#enter}. */
		final int most;

		Kind(int most) {
			this.most = most;
		}

	}

	/** A key of the fuzz, always asked for as one kind. */
	private record Key(String name, Kind kind) {

		LockRequest request(SplittableRandom random) {
			LockRequest request = LockRequest.of(this.name);
			return switch (this.kind) {
				case PLAIN -> request;
				case FAIR -> request.withFair(true);
				case READ_WRITE -> request.withMode(random.nextBoolean() ? LockMode.READ : LockMode.WRITE);
				case PERMITS -> request.withPermits(2);
			};
		}

	}

	/**
	 * One call: when it settles (ended, and what it took released), and when it ended
	 * unless its caller ended it.
	 */
	private record Call(String description, long deadlineNanos, CompletableFuture<Void> settled,
			AtomicLong endedAtNanos) {
	}

	/** The calls of one fuzz and what they saw. */
	private final class Fuzz {

		private final long seed;

		final AtomicInteger taken = new AtomicInteger();

		final AtomicInteger endedByCaller = new AtomicInteger();

		final List<String> problems = new CopyOnWriteArrayList<>();

		/**
		 * Per key: readers, plain and permit holders count 1, writers {@link #WRITER}.
		 */
		private final Map<String, AtomicInteger> holders = new ConcurrentHashMap<>();

		/** Per key, who holds it now, to name them when there are too many. */
		private final Map<String, Map<Long, String>> holderNames = new ConcurrentHashMap<>();

		private final AtomicLong holds = new AtomicLong();

		Fuzz(long seed) {
			this.seed = seed;
		}

		/**
		 * {@code tryAcquireAsync}, its future left alone, cancelled at once or a little
		 * later, timed out with {@code orTimeout}, or completed by the caller; a handle
		 * it gives is released with {@code releaseAsync}, whose own future is cancelled
		 * at times.
		 */
		Call future(DefaultDistributeLock lock, LockRequest request, SplittableRandom random) {
			int ending = random.nextInt(5);
			long pauseMicros = random.nextLong(3_000);
			long holdMicros = random.nextLong(1_000);
			boolean cancelRelease = random.nextInt(4) == 0;
			long start = System.nanoTime();
			CompletableFuture<Optional<LockHandle>> acquiring = lock.tryAcquireAsync(request);
			AtomicLong endedAt = new AtomicLong();
			CompletableFuture<Void> settled = acquiring.handle((taken, failure) -> {
				endedAt.set(System.nanoTime());
				if (failure != null) {
					expectedEnd(request, failure);
					return CompletableFuture.<Void>completedFuture(null);
				}
				return taken.map((handle) -> hold("future " + ending, request, handle, holdMicros, cancelRelease))
					.orElseGet(() -> CompletableFuture.completedFuture(null));
			}).thenCompose((release) -> release);
			switch (ending) {
				case 1 -> endedBy(acquiring.cancel(random.nextBoolean()));
				case 2 -> later(pauseMicros, () -> endedBy(acquiring.cancel(false)));
				case 3 -> acquiring.orTimeout(pauseMicros, TimeUnit.MICROSECONDS)
					.exceptionally((failure) -> null)
					.thenRun(() -> endedBy(failure(acquiring) instanceof TimeoutException));
				case 4 -> later(pauseMicros, () -> endedBy(acquiring.complete(Optional.empty())));
				default -> {
				}
			}
			return new Call("future " + ending + " " + request, deadline(start, request), settled, endedAt);
		}

		/**
		 * The adapter's {@code tryAcquire}, its subscription cancelled at a random point.
		 * The subscriber takes a handle that comes after its cancel, as the
		 * reactive-streams rules allow, and releases it: a lambda subscriber drops it
		 * (see the report of this fuzz).
		 */
		Call reactiveTryAcquire(DefaultDistributeLock lock, LockRequest request, SplittableRandom random) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			int ending = random.nextInt(3);
			long pauseMicros = random.nextLong(3_000);
			long holdMicros = random.nextLong(1_000);
			boolean cancelRelease = random.nextInt(4) == 0;
			long start = System.nanoTime();
			AtomicReference<CompletableFuture<Void>> release = new AtomicReference<>(
					CompletableFuture.completedFuture(null));
			CompletableFuture<Void> terminated = new CompletableFuture<>();
			AtomicLong endedAt = new AtomicLong();
			BaseSubscriber<LockHandle> subscriber = new BaseSubscriber<>() {

				@Override
				protected void hookOnNext(LockHandle handle) {
					release.set(hold("reactive tryAcquire " + ending, request, handle, holdMicros, cancelRelease));
				}

				@Override
				protected void hookOnError(Throwable failure) {
					expectedEnd(request, failure);
				}

				@Override
				protected void hookFinally(SignalType signal) {
					if (signal != SignalType.CANCEL) {
						endedAt.set(System.nanoTime());
					}
					terminated.complete(null);
				}

			};
			reactive.tryAcquire(request).subscribe(subscriber);
			switch (ending) {
				case 1 -> disposed(subscriber);
				case 2 -> later(pauseMicros, () -> disposed(subscriber));
				default -> {
				}
			}
			// A handle that comes after the cancel is released a moment later; the checks
			// at the end wait for that.
			return new Call("reactive tryAcquire " + ending + " " + request, deadline(start, request),
					terminated.thenCompose((ended) -> release.get()), endedAt);
		}

		/**
		 * The adapter's {@code withLockMono}, its subscription disposed at a random
		 * point.
		 */
		Call reactiveWithLock(DefaultDistributeLock lock, LockRequest request, SplittableRandom random) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			int ending = random.nextInt(3);
			long pauseMicros = random.nextLong(3_000);
			long workMicros = random.nextLong(2_000);
			long start = System.nanoTime();
			CompletableFuture<Void> terminated = new CompletableFuture<>();
			AtomicLong endedAt = new AtomicLong();
			Disposable subscription = reactive.withLockMono(request, (handle) -> Mono.defer(() -> {
				if (!handle.isHeld()) {
					this.problems.add("withLockMono's work subscribed to with its lock released: " + request);
				}
				long hold = enter(request, "withLockMono", handle);
				// Left before the work's end reaches usingWhen, which then releases: a
				// doFinally runs after that, when the next holder may be in.
				AtomicBoolean left = new AtomicBoolean();
				Runnable leave = () -> {
					if (left.compareAndSet(false, true)) {
						leave(request, hold);
					}
				};
				return Mono.delay(Duration.ofNanos(workMicros * 1_000)).doOnTerminate(leave).doOnCancel(leave);
			}), Busy::new).doFinally((signal) -> {
				if (signal != SignalType.CANCEL) {
					endedAt.set(System.nanoTime());
				}
				terminated.complete(null);
			}).subscribe((worked) -> this.taken.incrementAndGet(), (failure) -> {
				if (!(failure instanceof Busy)) {
					expectedEnd(request, failure);
				}
			});
			switch (ending) {
				case 1 -> disposed(subscription);
				case 2 -> later(pauseMicros, () -> disposed(subscription));
				default -> {
				}
			}
			return new Call("reactive withLockMono " + ending + " " + request,
					deadline(start, request) + TimeUnit.MICROSECONDS.toNanos(workMicros), terminated, endedAt);
		}

		/**
		 * Waits for the call to settle; one its caller did not end must have ended by its
		 * deadline plus the bound.
		 */
		void awaitSettled(Call call) throws InterruptedException {
			long left = call.deadlineNanos() + SETTLE_BOUND.toNanos() - System.nanoTime();
			try {
				call.settled().get(Math.max(left, 0) + SETTLE_BOUND.toNanos(), TimeUnit.NANOSECONDS);
			}
			catch (TimeoutException ex) {
				this.problems.add("Not settled past its deadline plus " + SETTLE_BOUND.multipliedBy(2) + ": "
						+ call.description());
				return;
			}
			catch (ExecutionException ex) {
				this.problems.add("Settled with " + ex.getCause() + ": " + call.description());
				return;
			}
			long endedAt = call.endedAtNanos().get();
			if (endedAt != 0 && endedAt - call.deadlineNanos() > SETTLE_BOUND.toNanos()) {
				this.problems.add("Ended " + TimeUnit.NANOSECONDS.toMillis(endedAt - call.deadlineNanos())
						+ " ms past its deadline: " + call.description());
			}
		}

		/**
		 * Holds for a while, counting the holders, then releases with
		 * {@code releaseAsync}, whose future is cancelled at times: that is the caller's
		 * own, and the release goes on.
		 */
		private CompletableFuture<Void> hold(String path, LockRequest request, LockHandle handle, long holdMicros,
				boolean cancelRelease) {
			this.taken.incrementAndGet();
			long hold = enter(request, path, handle);
			CompletableFuture<Void> released = new CompletableFuture<>();
			later(holdMicros, () -> {
				leave(request, hold);
				CompletableFuture<Void> releasing = handle.releaseAsync();
				if (cancelRelease) {
					releasing.cancel(false);
					released.complete(null);
					return;
				}
				releasing.whenComplete((done, failure) -> {
					if (failure != null) {
						this.problems.add("Release of " + request + " failed: " + failure);
					}
					released.complete(null);
				});
			});
			return released;
		}

		private long enter(LockRequest request, String path, LockHandle handle) {
			long hold = this.holds.incrementAndGet();
			List<LockHandle> handles = (handle instanceof MultiKeyHandle multiKey) ? multiKey.handles()
					: List.of(handle);
			for (LockHandle each : handles) {
				this.holderNames.computeIfAbsent(each.key(), (key) -> new ConcurrentHashMap<>())
					.put(hold, path + " token " + each.fencingToken() + " held " + each.isHeld() + " at "
							+ System.nanoTime() / 1_000);
			}
			for (LockRequest part : parts(request)) {
				int most = (part.permits() != 0) ? Kind.PERMITS.most
						: (part.mode() != LockMode.EXCLUSIVE) ? Kind.READ_WRITE.most : Kind.PLAIN.most;
				int now = this.holders.computeIfAbsent(part.key(), (key) -> new AtomicInteger())
					.addAndGet(weight(part));
				if (now > most) {
					this.problems.add("Holders of " + part.key() + " counted " + now + " (most " + most + ") as " + path
							+ " took " + request + ": " + this.holderNames.get(part.key()));
				}
			}
			return hold;
		}

		private void leave(LockRequest request, long hold) {
			for (LockRequest part : parts(request)) {
				this.holderNames.get(part.key()).remove(hold);
				this.holders.get(part.key()).addAndGet(-weight(part));
			}
		}

		private static int weight(LockRequest part) {
			return (part.mode() == LockMode.WRITE) ? WRITER : 1;
		}

		private static List<LockRequest> parts(LockRequest request) {
			return request.isMultiKey() ? request.parts() : List.of(request);
		}

		/**
		 * A call may end with its caller's cancel or timeout, nothing else: the stores
		 * are up, and each key is always asked for as one kind.
		 */
		private void expectedEnd(LockRequest request, Throwable failure) {
			Throwable cause = (failure instanceof CompletionException) ? failure.getCause() : failure;
			if (!(cause instanceof CancellationException) && !(cause instanceof TimeoutException)) {
				logger.warn("Seed " + this.seed + ": " + request + " failed", cause);
				this.problems.add(request + " failed: " + cause);
			}
		}

		private void endedBy(boolean caller) {
			if (caller) {
				this.endedByCaller.incrementAndGet();
			}
		}

		private void disposed(Disposable subscription) {
			boolean ended = !subscription.isDisposed();
			subscription.dispose();
			endedBy(ended);
		}

		private void later(long micros, Runnable ending) {
			AbstractAsyncCancelFuzzTests.this.enders.schedule(ending, micros, TimeUnit.MICROSECONDS);
		}

		private static long deadline(long start, LockRequest request) {
			return start + request.waitTime().toNanos();
		}

		private static Throwable failure(CompletableFuture<?> future) {
			try {
				future.getNow(null);
				return null;
			}
			catch (CompletionException ex) {
				return ex.getCause();
			}
			catch (CancellationException ex) {
				return ex;
			}
		}

	}

	/** The work's busy signal: the lock was not taken in time. */
	private static final class Busy extends RuntimeException {

		Busy() {
			super("busy", null, false, false);
		}

	}

}
