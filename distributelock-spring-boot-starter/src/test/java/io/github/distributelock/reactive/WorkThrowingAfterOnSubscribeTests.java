package io.github.distributelock.reactive;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A work whose publisher calls {@code onSubscribe} and then throws from
 * {@code subscribe()} (Reactive Streams rule 1.9 forbids it; broken code does it): the
 * subscriber hears one terminal signal, the work's own if it sent one before throwing,
 * else the thrown error, and nothing after it, whatever the work still sends; the work is
 * cancelled, and the lock is released.
 */
class WorkThrowingAfterOnSubscribeTests {

	private static final String HOOK = WorkThrowingAfterOnSubscribeTests.class.getName();

	private static final Duration BOUND = Duration.ofSeconds(10);

	@AfterEach
	void resetHook() {
		Schedulers.resetOnScheduleHook(HOOK);
	}

	@Test
	void aFluxWhoseWorkThrowsAfterOnSubscribeFailsOnceAndReleasesTheLock() throws Exception {
		assertThat(signalsOf("throws.flux", WorkThrowingAfterOnSubscribeTests::flux, Broken.SUBSCRIBED))
			.containsExactly("onError: subscribe() threw");
	}

	@Test
	void aMonoWhoseWorkThrowsAfterOnSubscribeFailsOnceAndReleasesTheLock() throws Exception {
		assertThat(signalsOf("throws.mono", WorkThrowingAfterOnSubscribeTests::mono, Broken.SUBSCRIBED))
			.containsExactly("onError: subscribe() threw");
	}

	@Test
	void aFluxWhoseWorkThrowsAfterCompletingEndsWithItsCompletionAlone() throws Exception {
		assertThat(signalsOf("completed.flux", WorkThrowingAfterOnSubscribeTests::flux, Broken.COMPLETED))
			.containsExactly("onNext: work", "onComplete");
	}

	@Test
	void aMonoWhoseWorkThrowsAfterFailingEndsWithItsOwnErrorAlone() throws Exception {
		assertThat(signalsOf("failed.mono", WorkThrowingAfterOnSubscribeTests::mono, Broken.FAILED))
			.containsExactly("onError: the work failed");
	}

	/**
	 * A work that sends an element from a thread of its own and then throws: the thrown
	 * error reached the subscriber while it was still in {@code onNext} for that element
	 * (two signals at once, Reactive Streams rule 1.3), through {@code usingWhen}, which
	 * then released the lock during that {@code onNext}. It is told once the element has
	 * been handled.
	 */
	@Test
	void anElementSentOnAnotherThreadWhileTheWorkThrowsIsHandledBeforeTheError() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			CountDownLatch ran = subscribingTaskEnds();
			CountDownLatch inNext = new CountDownLatch(1);
			ExecutorService emitter = Executors.newSingleThreadExecutor();
			try {
				Publisher<String> work = (subscriber) -> {
					subscriber.onSubscribe(Operators.emptySubscription());
					emitter.execute(() -> subscriber.onNext("element"));
					awaitWithin(inNext);
					throw new IllegalStateException("subscribe() threw");
				};
				List<String> signals = new CopyOnWriteArrayList<>();
				CountDownLatch ended = new CountDownLatch(1);
				reactive
					.withLock(LockRequest.of("emits.flux"), (handle) -> work, WorkThrowingAfterOnSubscribeTests::busy)
					.subscribe(new Recorder(signals, ended) {

						@Override
						public void onNext(String value) {
							super.onNext(value);
							inNext.countDown();
							// Until the task that subscribed the work, which handles the
							// throw, has ended.
							awaitWithin(ran);
							signals.add("held: " + !lock.heldLocks().isEmpty());
							signals.add("left onNext");
						}

					});
				assertThat(ended.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
				assertThat(signals).containsExactly("onNext: element", "held: true", "left onNext",
						"onError: subscribe() threw");
				await().atMost(BOUND).until(() -> lock.heldLocks().isEmpty());
			}
			finally {
				emitter.shutdownNow();
				assertThat(emitter.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
			}
		}
	}

	/** Counts down once the next task scheduled on a Reactor scheduler has ended. */
	private static CountDownLatch subscribingTaskEnds() {
		CountDownLatch ran = new CountDownLatch(1);
		AtomicBoolean armed = new AtomicBoolean(true);
		Schedulers.onScheduleHook(HOOK, (task) -> armed.compareAndSet(true, false) ? () -> {
			try {
				task.run();
			}
			finally {
				ran.countDown();
			}
		} : task);
		return ran;
	}

	private static void awaitWithin(CountDownLatch latch) {
		try {
			assertThat(latch.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The signals a subscriber hears from the locked work, once the task that subscribed
	 * the work has ended, the lock was released, and the work sent what it still had.
	 */
	private List<String> signalsOf(String key, Locking locking, Broken broken) throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			CountDownLatch ran = subscribingTaskEnds();
			AtomicReference<Subscriber<? super String>> workSubscriber = new AtomicReference<>();
			AtomicBoolean workCancelled = new AtomicBoolean();
			Publisher<String> work = (subscriber) -> {
				workSubscriber.set(subscriber);
				subscriber.onSubscribe(new Subscription() {

					@Override
					public void request(long n) {
						if (broken == Broken.COMPLETED) {
							subscriber.onNext("work");
							subscriber.onComplete();
						}
						else if (broken == Broken.FAILED) {
							subscriber.onError(new IllegalStateException("the work failed"));
						}
					}

					@Override
					public void cancel() {
						workCancelled.set(true);
					}

				});
				throw new IllegalStateException("subscribe() threw");
			};
			List<String> signals = new CopyOnWriteArrayList<>();
			CountDownLatch ended = new CountDownLatch(1);
			locking.lock(reactive, LockRequest.of(key), work).subscribe(new Recorder(signals, ended));
			assertThat(ended.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(ran.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
			await().atMost(BOUND).until(() -> lock.heldLocks().isEmpty());
			if (broken == Broken.SUBSCRIBED) {
				assertThat(workCancelled).as("whether the work was cancelled").isTrue();
			}
			// What a work that goes on after throwing still sends.
			workSubscriber.get().onNext("late");
			workSubscriber.get().onComplete();
			return signals;
		}
	}

	private static LockFailedException busy() {
		return new LockFailedException("busy", null, "throws");
	}

	/** How the work's publisher breaks the rule before it throws. */
	private enum Broken {

		/** Throws once it has called {@code onSubscribe}. */
		SUBSCRIBED,

		/** Completes when asked for its element, then throws. */
		COMPLETED,

		/** Fails when asked for its element, then throws. */
		FAILED

	}

	private static Publisher<String> flux(ReactiveDistributeLock reactive, LockRequest request,
			Publisher<String> work) {
		return reactive.withLock(request, (handle) -> work, WorkThrowingAfterOnSubscribeTests::busy);
	}

	private static Publisher<String> mono(ReactiveDistributeLock reactive, LockRequest request,
			Publisher<String> work) {
		return reactive.withLockMono(request, (handle) -> Mono.fromDirect(work),
				WorkThrowingAfterOnSubscribeTests::busy);
	}

	/** A work's publisher under the lock. */
	@FunctionalInterface
	private interface Locking {

		Publisher<String> lock(ReactiveDistributeLock reactive, LockRequest request, Publisher<String> work);

	}

	/** Records every signal, requesting all. */
	private static class Recorder implements CoreSubscriber<String> {

		private final List<String> signals;

		private final CountDownLatch ended;

		Recorder(List<String> signals, CountDownLatch ended) {
			this.signals = signals;
			this.ended = ended;
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			subscription.request(Long.MAX_VALUE);
		}

		@Override
		public void onNext(String value) {
			this.signals.add("onNext: " + value);
		}

		@Override
		public void onError(Throwable failure) {
			this.signals.add("onError: " + failure.getMessage());
			this.ended.countDown();
		}

		@Override
		public void onComplete() {
			this.signals.add("onComplete");
			this.ended.countDown();
		}

	}

}
