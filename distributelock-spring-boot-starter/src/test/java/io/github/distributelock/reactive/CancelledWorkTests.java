package io.github.distributelock.reactive;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A subscription of {@code withLock} or {@code withLockMono} cancelled while its work is
 * being subscribed on Reactor's parallel scheduler: the task that subscribes the work has
 * started, so disposing the subscription does not stop it. Found by
 * {@code AbstractAsyncCancelFuzzTests} on H2: the work's function ran with a handle
 * already released, while another caller held the lock. The work starts under the lock or
 * not at all, and the lock is released once the work's function has returned.
 */
class CancelledWorkTests {

	private static final String HOOK = CancelledWorkTests.class.getName();

	private static final Duration BOUND = Duration.ofSeconds(10);

	@AfterEach
	void resetHook() {
		Schedulers.resetOnScheduleHook(HOOK);
	}

	@Test
	void aMonoWhoseSubscriptionIsCancelledAsItsWorkIsSubscribedDoesNotStartItsWorkOnceReleased() throws Exception {
		assertTheWorkDoesNotStartOnceReleased("cancelled.mono",
				(reactive, work) -> reactive.withLockMono(LockRequest.of("cancelled.mono"),
						(handle) -> Mono.fromSupplier(work.apply(handle)), CancelledWorkTests::busy));
	}

	@Test
	void aFluxWhoseSubscriptionIsCancelledAsItsWorkIsSubscribedDoesNotStartItsWorkOnceReleased() throws Exception {
		assertTheWorkDoesNotStartOnceReleased("cancelled.flux",
				(reactive, work) -> reactive.withLock(LockRequest.of("cancelled.flux"),
						(handle) -> Flux.just(work.apply(handle).get()), CancelledWorkTests::busy));
	}

	/**
	 * A cancel that comes while the work is being applied (here, the work's function
	 * disposes the subscription): what the work runs as it is subscribed to, such as the
	 * supplier of its own {@code defer}, runs before the release, with the lock held.
	 */
	@Test
	void aSubscriptionCancelledWhileItsWorkIsAppliedReleasesOnceTheWorkIsSubscribedTo() throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			AtomicReference<Boolean> heldWhenSubscribed = new AtomicReference<>();
			CountDownLatch subscribed = new CountDownLatch(1);
			BaseSubscriber<String> subscriber = new BaseSubscriber<>() {
			};
			reactive.withLockMono(LockRequest.of("cancelled.applying"), (handle) -> {
				subscriber.dispose();
				return Mono.defer(() -> {
					heldWhenSubscribed.set(handle.isHeld());
					subscribed.countDown();
					return Mono.just("work");
				});
			}, CancelledWorkTests::busy).subscribe(subscriber);
			assertThat(subscribed.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
			assertThat(heldWhenSubscribed.get()).as("whether the lock was held when the work was subscribed to")
				.isTrue();
			await().atMost(BOUND).until(() -> lock.heldLocks().isEmpty());
		}
	}

	/**
	 * Holds the parallel thread that subscribes the work at the start of its task, until
	 * the subscription was disposed, its lock released and taken by another instance.
	 */
	private void assertTheWorkDoesNotStartOnceReleased(String key, Locked locked) throws Exception {
		MemoryLockBackend store = new MemoryLockBackend();
		try (DefaultDistributeLock lock = new DefaultDistributeLock(store);
				DefaultDistributeLock other = new DefaultDistributeLock(store)) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			CountDownLatch started = new CountDownLatch(1);
			CountDownLatch go = new CountDownLatch(1);
			CountDownLatch ran = new CountDownLatch(1);
			AtomicBoolean armed = new AtomicBoolean(true);
			Schedulers.onScheduleHook(HOOK, (task) -> armed.compareAndSet(true, false) ? () -> {
				started.countDown();
				awaitUninterruptibly(go);
				try {
					task.run();
				}
				finally {
					ran.countDown();
				}
			} : task);
			AtomicReference<Boolean> heldWhenTheWorkStarted = new AtomicReference<>();
			Disposable subscription = Flux.from(locked.subscribe(reactive, (handle) -> {
				heldWhenTheWorkStarted.set(handle.isHeld());
				return () -> "work";
			})).subscribe();
			try {
				assertThat(started.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
				subscription.dispose();
				await().atMost(BOUND).until(() -> lock.heldLocks().isEmpty());
				try (LockHandle next = other.tryAcquire(key, Duration.ZERO, null).orElseThrow()) {
					go.countDown();
					assertThat(ran.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
					assertThat(heldWhenTheWorkStarted.get()).as("whether the lock was held when the work started")
						.isNotEqualTo(false);
					assertThat(next.isHeld()).isTrue();
				}
			}
			finally {
				go.countDown();
			}
			assertThat(lock.heldLocks()).isEmpty();
		}
	}

	private static LockFailedException busy() {
		return new LockFailedException("busy", null, "cancelled");
	}

	private static void awaitUninterruptibly(CountDownLatch go) {
		// Disposing the subscription interrupts the task that subscribes the work.
		boolean interrupted = false;
		while (true) {
			try {
				go.await(BOUND.toSeconds(), TimeUnit.SECONDS);
				break;
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	/** Subscribes a work, given as a function of the handle, under the lock. */
	@FunctionalInterface
	private interface Locked {

		Publisher<String> subscribe(ReactiveDistributeLock reactive,
				Function<LockHandle, java.util.function.Supplier<String>> work);

	}

}
