package io.github.distributelock.reactive;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockKindConflictException;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.CountingLockBackend;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.HeldLockInfo;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reactive lock API at the edges of a subscription, on an in-memory store whose
 * uncontended acquisition completes before the subscriber hears of it.
 */
class DefaultReactiveDistributeLockTests {

	private static final Supplier<LockFailedException> BUSY = () -> new LockFailedException("busy", null, "k");

	/**
	 * A subscription cancelled once the engine has handed out the lock but before the
	 * subscriber asked for it: the future, already complete, cancels nothing, and the
	 * lock must not stay held by nobody.
	 */
	@Test
	void aSubscriptionCancelledAsTheLockArrivesLeavesItFree() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			reactive.tryAcquire(LockRequest.of("reactive.cancelled")).subscribe(new BaseSubscriber<>() {
				@Override
				protected void hookOnSubscribe(Subscription subscription) {
					cancel();
				}
			});
			// Released without blocking: the release may complete after the cancel
			// returns.
			await().atMost(Duration.ofSeconds(5)).until(() -> lock.heldLocks().isEmpty());
			assertThat(lock.tryAcquire("reactive.cancelled", Duration.ZERO, null)).isPresent()
				.hasValueSatisfying((handle) -> handle.close());
		}
	}

	/**
	 * A reactive holder's lease is renewed by the watchdog like any other: the key stays
	 * held in the store through work far longer than the lease, and is released when the
	 * work ends.
	 */
	@Test
	void theWatchdogRenewsTheLeaseOfAReactiveHolderThroughLongWork() throws Exception {
		MemoryLockBackend store = new MemoryLockBackend();
		CountingLockBackend backend = CountingLockBackend.of(store);
		try (DefaultDistributeLock lock = new DefaultDistributeLock(backend, Duration.ofMillis(300), false,
				LockEventListener.NONE, null)) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = reactive
				.withLockMono(LockRequest.of("reactive.renewed"), (handle) -> Mono.fromFuture(work), BUSY)
				.toFuture();

			// Three renewals of a 300 ms lease: past the lease, however slow the machine.
			await().atMost(Duration.ofSeconds(10)).until(() -> backend.renewals.get() >= 3);
			assertThat(store.isLocked("reactive.renewed")).as("held past its lease").isTrue();
			assertThat(lock.lostLockCount()).isZero();
			work.complete("done");

			assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			await().atMost(Duration.ofSeconds(5)).until(() -> !store.isLocked("reactive.renewed"));
		}
	}

	/**
	 * A subscription cancelled once the lock is granted, while the work waits for a
	 * thread of Reactor's parallel scheduler: the lock is released, not left held and
	 * renewed by nobody. Every parallel worker is kept busy until after the cancel.
	 */
	@Test
	void aSubscriptionCancelledWhileItsWorkWaitsForAThreadReleasesTheLock() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			CountDownLatch busy = new CountDownLatch(Schedulers.DEFAULT_POOL_SIZE);
			CountDownLatch go = new CountDownLatch(1);
			for (int i = 0; i < Schedulers.DEFAULT_POOL_SIZE * 2; i++) {
				Schedulers.parallel().schedule(() -> {
					busy.countDown();
					awaitQuietly(go);
				});
			}
			try {
				assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
				Disposable subscription = reactive
					.withLockMono(LockRequest.of("reactive.granted"), (handle) -> Mono.just("work"),
							() -> new LockFailedException("busy", null, "reactive.granted"))
					.subscribe();
				await().atMost(Duration.ofSeconds(5)).until(() -> !lock.heldLocks().isEmpty());
				subscription.dispose();
			}
			finally {
				go.countDown();
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> lock.heldLocks().isEmpty());
			assertThat(lock.tryAcquire("reactive.granted", Duration.ZERO, null)).hasValueSatisfying(LockHandle::close);
		}
	}

	/**
	 * A locked publisher cut short by {@code take(1)} completes downstream while the
	 * release of its cancel, which {@code usingWhen} runs in the background, is still on
	 * its way to the store (held back here): the next subscription, with a wait of 0,
	 * gets the lock once that release ends instead of failing busy.
	 */
	@Test
	void aZeroWaitSubscriptionRightAfterTakeOneGetsTheLockItsCancelGivesBack() throws Exception {
		CountingLockBackend store = CountingLockBackend.of(new MemoryLockBackend());
		try (DefaultDistributeLock lock = new DefaultDistributeLock(store)) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			LockRequest request = LockRequest.of("reactive.taken.once");
			CompletableFuture<Void> send = store.holdBackReleases();
			CompletableFuture<String> next;
			try {
				assertThat(reactive.withLock(request, (handle) -> Flux.interval(Duration.ofMillis(1)), BUSY)
					.take(1)
					.blockLast(Duration.ofSeconds(10))).isZero();
				// usingWhen runs the cancel's release in the background: it may reach the
				// store just after the downstream completed.
				await("the cancel's release, sent").atMost(Duration.ofSeconds(5))
					.untilAsserted(() -> assertThat(store.releases).hasValue(1));
				next = reactive.withLockMono(request, (handle) -> Mono.just("next"), BUSY).toFuture();
				await("the next subscription waiting for the release in flight").during(Duration.ofMillis(200))
					.atMost(Duration.ofSeconds(5))
					.until(() -> !next.isDone());
			}
			finally {
				send.complete(null);
			}
			assertThat(next.get(10, TimeUnit.SECONDS)).isEqualTo("next");
			await().atMost(Duration.ofSeconds(5)).until(() -> lock.heldLocks().isEmpty());
		}
	}

	/**
	 * A nested lock re-enters the pipeline's hold only as the blocking engine re-enters a
	 * thread's: of the same lock service, a kind the hold admits, and for a multi-key
	 * request, each of its keys, taking the ones not held yet.
	 */
	@Test
	void aNestedLockReentersOnlyWhatThePipelineHoldsAndAsAKindItsHoldAdmits() throws Exception {
		MemoryLockBackend store = new MemoryLockBackend();
		MemoryLockBackend otherStore = new MemoryLockBackend();
		try (DefaultDistributeLock lock = new DefaultDistributeLock(store);
				DefaultDistributeLock otherInstance = new DefaultDistributeLock(store);
				DefaultDistributeLock otherService = new DefaultDistributeLock(otherStore);
				DefaultDistributeLock otherServicesInstance = new DefaultDistributeLock(otherStore)) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			ReactiveDistributeLock secondService = new DefaultReactiveDistributeLock(() -> otherService);
			LockRequest read = LockRequest.of("k").withMode(LockMode.READ);
			LockRequest both = LockRequest.all(LockRequest.of("a"), LockRequest.of("b"));
			assertThat(nested(reactive, read, reactive, read.withMode(LockMode.WRITE), lock))
				.as("a reader asking for the write lock of its key")
				.failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(LockKindConflictException.class)
				.withMessageContaining("would deadlock");
			try (LockHandle elsewhere = otherServicesInstance.tryAcquire("k", Duration.ZERO, null).orElseThrow()) {
				assertThat(nested(reactive, LockRequest.of("k"), secondService, LockRequest.of("k"), lock))
					.as("the key held in the other service's store")
					.failsWithin(Duration.ofSeconds(10))
					.withThrowableThat()
					.havingCause()
					.isInstanceOf(LockFailedException.class);
			}
			try (LockHandle a = otherInstance.tryAcquire("a", Duration.ZERO, null).orElseThrow()) {
				assertThat(nested(reactive, LockRequest.of("a,b"), reactive, both, lock))
					.as("a single key named like the multi-key request")
					.failsWithin(Duration.ofSeconds(10))
					.withThrowableThat()
					.havingCause()
					.isInstanceOf(LockFailedException.class);
			}
			assertThat(nested(reactive, both, reactive, LockRequest.of("a"), lock))
				.succeedsWithin(Duration.ofSeconds(10))
				.isEqualTo(List.of("a", "b"));
			assertThat(nested(reactive, LockRequest.of("a"), reactive, both, lock))
				.as("the nested request takes b alone, and a stays the outer hold")
				.succeedsWithin(Duration.ofSeconds(10))
				.isEqualTo(List.of("a", "b"));
			await().atMost(Duration.ofSeconds(5)).until(() -> lock.heldLocks().isEmpty());
		}
	}

	/**
	 * The keys a nested multi-key request takes beside those the pipeline holds are taken
	 * with everything the request asks for, its fixed lease too, not with a lease the
	 * watchdog renews.
	 */
	@Test
	void theKeysANestedMultiKeyRequestTakesKeepItsFixedLease() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			Duration lease = Duration.ofSeconds(45);
			LockRequest both = LockRequest.all(LockRequest.of("lease.a"), LockRequest.of("lease.b"))
				.withLeaseTime(lease);
			List<HeldLockInfo> held = reactive.withLockMono(LockRequest.of("lease.a"),
					(outer) -> reactive.withLockMono(both, (inner) -> Mono.fromCallable(lock::heldLocks), BUSY), BUSY)
				.block(Duration.ofSeconds(10));
			assertThat(held).filteredOn((info) -> info.key().equals("lease.b")).singleElement().satisfies((info) -> {
				assertThat(info.lease()).isEqualTo(lease);
				assertThat(info.renewed()).isFalse();
			});
		}
	}

	/**
	 * {@code @Lockable} and the {@code ReactiveDistributeLock} bean are two adapters of
	 * one lock service: a key one of them holds for the pipeline, the other enters at
	 * once, in either order, rather than waiting for itself.
	 */
	@Test
	void aNestedLockThroughAnotherAdapterOfTheSameServiceEntersAtOnce() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock bean = new DefaultReactiveDistributeLock(() -> lock);
			ReactiveDistributeLock annotation = new DefaultReactiveDistributeLock(() -> lock);
			assertThat(nested(bean, LockRequest.of("k"), annotation, LockRequest.of("k"), lock))
				.succeedsWithin(Duration.ofSeconds(10))
				.isEqualTo(List.of("k"));
			assertThat(nested(annotation, LockRequest.of("k"), bean, LockRequest.of("k"), lock))
				.succeedsWithin(Duration.ofSeconds(10))
				.isEqualTo(List.of("k"));
			assertThat(nested(bean, LockRequest.all(LockRequest.of("a"), LockRequest.of("b")), annotation,
					LockRequest.all(LockRequest.of("b"), LockRequest.of("c")), lock))
				.as("the nested request enters b and takes c")
				.succeedsWithin(Duration.ofSeconds(10))
				.isEqualTo(List.of("a", "b", "c"));
			await().atMost(Duration.ofSeconds(5)).until(() -> lock.heldLocks().isEmpty());
		}
	}

	/**
	 * A nested entry ends with its work, as a closed reentrant handle does: it is no
	 * longer held while the pipeline's hold goes on, and it is not told of a later loss
	 * of that hold; an entry still open is told, with its own handle.
	 */
	@Test
	void aNestedEntryEndsWithItsWorkAndOnlyOpenEntriesAreToldOfALoss() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			// A fixed lease that nothing renews: the pipeline's hold is lost when it runs
			// out, long after the first nested entry has ended.
			LockRequest held = LockRequest.of("reactive.nested").withLeaseTime(Duration.ofSeconds(1));
			AtomicInteger toldEnded = new AtomicInteger();
			CompletableFuture<LockHandle> toldOpen = new CompletableFuture<>();
			CompletableFuture<List<Boolean>> heldAfterTheFirstEntry = new CompletableFuture<>();
			CompletableFuture<LockHandle> open = new CompletableFuture<>();
			CountDownLatch outerLost = new CountDownLatch(1);
			Mono<LockHandle> work = reactive.withLockMono(held, (outer) -> {
				outer.onLost((lost) -> outerLost.countDown());
				return reactive.withLockMono(LockRequest.of("reactive.nested"), (ended) -> {
					ended.onLost((lost) -> toldEnded.incrementAndGet());
					return Mono.just(ended);
				}, BUSY).flatMap((ended) -> {
					heldAfterTheFirstEntry
						.complete(List.of(ended.isHeld(), ended.isClosed(), outer.isHeld(), outer.isClosed()));
					return reactive.withLockMono(LockRequest.of("reactive.nested"), (entry) -> {
						open.complete(entry);
						entry.onLost(toldOpen::complete);
						return Mono.fromFuture(toldOpen);
					}, BUSY);
				});
			}, BUSY);
			CompletableFuture<LockHandle> result = work.toFuture();

			assertThat(heldAfterTheFirstEntry).succeedsWithin(Duration.ofSeconds(10))
				.as("the ended entry (held, closed), then the pipeline's hold")
				.isEqualTo(List.of(false, true, true, false));
			assertThat(outerLost.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(result).succeedsWithin(Duration.ofSeconds(10)).isSameAs(open.get());
			assertThat(toldEnded).hasValue(0);
		}
	}

	/**
	 * A work function that returns {@code null} instead of a publisher (a mock of a
	 * reactive repository does) fails the subscription with a
	 * {@link NullPointerException}, as {@code defer} does, and the lock is released: the
	 * subscription never ended, and the lock stayed held, renewed by the watchdog, until
	 * the lock service closed.
	 */
	@Test
	void aWorkFunctionReturningNullFailsTheSubscriptionAndReleasesTheLock() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			CompletableFuture<String> mono = reactive
				.<String>withLockMono(LockRequest.of("reactive.null.mono"), (handle) -> null, BUSY)
				.toFuture();
			CompletableFuture<List<String>> flux = reactive
				.<String>withLock(LockRequest.of("reactive.null.flux"), (handle) -> null, BUSY)
				.collectList()
				.toFuture();
			assertThat(mono).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(NullPointerException.class);
			assertThat(flux).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(NullPointerException.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> lock.heldLocks().isEmpty());
		}
	}

	/**
	 * A work whose publisher throws from {@code subscribe()} instead of signalling
	 * {@code onError} (the Reactive Streams specification forbids it; a hand-written
	 * publisher or a misbehaving library does it) fails the subscription with that error,
	 * and the lock is released: it was thrown on the scheduler's thread, where no one
	 * heard of it, the subscription never ended, and the lock stayed held.
	 */
	@Test
	void aWorkWhosePublisherThrowsOnSubscribeFailsTheSubscriptionAndReleasesTheLock() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			CompletableFuture<String> mono = reactive
				.<String>withLockMono(LockRequest.of("reactive.throws.mono"), (handle) -> new Mono<String>() {

					@Override
					public void subscribe(CoreSubscriber<? super String> actual) {
						throw new IllegalStateException("subscribe() threw");
					}

				}, BUSY)
				.toFuture();
			CompletableFuture<List<String>> flux = reactive
				.<String>withLock(LockRequest.of("reactive.throws.flux"), (handle) -> (subscriber) -> {
					throw new IllegalStateException("subscribe() threw");
				}, BUSY)
				.collectList()
				.toFuture();
			assertThat(mono).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessage("subscribe() threw");
			assertThat(flux).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessage("subscribe() threw");
			await().atMost(Duration.ofSeconds(5)).until(() -> lock.heldLocks().isEmpty());
		}
	}

	/**
	 * {@code inner} taken within {@code outer}, failing busy at once; completes with the
	 * keys {@code watched} holds during the inner work, in order.
	 */
	private static CompletableFuture<List<String>> nested(ReactiveDistributeLock outerService, LockRequest outer,
			ReactiveDistributeLock innerService, LockRequest inner, DefaultDistributeLock watched) {
		return outerService.withLockMono(outer,
				(outerHandle) -> innerService.withLockMono(inner,
						(innerHandle) -> Mono.fromCallable(
								() -> watched.heldLocks().stream().map((held) -> held.key()).sorted().toList()),
						BUSY),
				BUSY)
			.toFuture();
	}

	private static void awaitQuietly(CountDownLatch go) {
		try {
			go.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
