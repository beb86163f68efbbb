package io.github.distributelock.aop;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.LockServiceShutdownException;
import io.github.distributelock.Lockable;
import io.github.distributelock.Lockable.OnBusy;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A skipping {@link Lockable @Lockable} method that returns a future or a publisher is
 * skipped where a blocking one is (see the scheduled-jobs page): when the lock service
 * shuts down, and when its caller is interrupted while it waits; never when its work
 * fails.
 */
class LockableSkipsAsynchronouslyTests {

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = new DefaultDistributeLock(this.store);

	private final Jobs target = new Jobs();

	private final Jobs jobs = LockableProxies.proxy(this.target, this.lock);

	@AfterEach
	void closeLock() {
		this.lock.close();
		this.target.elsewhere.close();
	}

	@Test
	void aFutureMonoOrFluxMethodIsSkippedWhenTheLockServiceShutsDown() throws Exception {
		this.lock.close();
		assertThat(this.jobs.future().get(5, TimeUnit.SECONDS)).isNull();
		assertThat(this.jobs.mono().blockOptional(Duration.ofSeconds(5))).isEmpty();
		assertThat(this.jobs.flux().collectList().block(Duration.ofSeconds(5))).isEmpty();
		assertThat(this.target.runs).hasValue(0);
	}

	@Test
	void aShutdownThatTheWorkOfAFutureMonoOrFluxMethodMeetsIsItsFailureNotASkip() {
		this.target.elsewhere.close();
		assertThat(this.jobs.futureCallingElsewhere()).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.withRootCauseInstanceOf(LockServiceShutdownException.class);
		assertThatExceptionOfType(LockServiceShutdownException.class)
			.isThrownBy(() -> this.jobs.monoCallingElsewhere().block(Duration.ofSeconds(5)));
		assertThatExceptionOfType(LockServiceShutdownException.class)
			.isThrownBy(() -> this.jobs.fluxCallingElsewhere().blockLast(Duration.ofSeconds(5)));
		assertThat(this.target.runs).hasValue(3);
	}

	@Test
	void aFutureMethodInterruptedWhileItsCallerWaitsIsSkippedAndKeepsTheInterrupt() throws Exception {
		AtomicReference<Object> outcome = new AtomicReference<>("not returned");
		AtomicBoolean interruptKept = new AtomicBoolean();
		CountDownLatch returned = new CountDownLatch(1);
		try (DefaultDistributeLock otherInstance = new DefaultDistributeLock(this.store);
				LockHandle held = otherInstance.tryAcquire("job.waiting", Duration.ZERO, null).orElseThrow()) {
			Thread caller = new Thread(() -> {
				try {
					outcome.set(this.jobs.futureWaiting().getNow("not completed"));
				}
				catch (RuntimeException ex) {
					outcome.set(ex);
				}
				interruptKept.set(Thread.currentThread().isInterrupted());
				returned.countDown();
			});
			caller.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> caller.getState() == Thread.State.WAITING);
			caller.interrupt();
			assertThat(returned.await(10, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(outcome.get()).isNull();
		assertThat(interruptKept).isTrue();
		assertThat(this.target.runs).hasValue(0);
	}

	/**
	 * The store's answer, the lock granted, arrives as the interrupted caller stops
	 * waiting and before it cancels the wait, so the cancel cancels nothing: the lock is
	 * released all the same, not left to the watchdog for good.
	 */
	@Test
	void aLockGrantedAsTheInterruptedCallerOfAFutureMethodStopsWaitingIsReleased() {
		AtomicBoolean grantedLate = new AtomicBoolean();
		Jobs jobs = LockableProxies.proxy(this.target, answeringAtTheInterrupt(this.lock, grantedLate));
		CompletableFuture<String> outcome;
		boolean interruptKept;
		Thread.currentThread().interrupt();
		try {
			outcome = jobs.futureWaiting();
		}
		finally {
			interruptKept = Thread.interrupted();
		}
		assertThat(outcome).isCompletedWithValue(null);
		assertThat(interruptKept).isTrue();
		assertThat(grantedLate).as("the lock was granted after the wait ended").isTrue();
		assertThat(this.target.runs).hasValue(0);
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(this.store.isLocked("job.waiting")).as("locked in the store").isFalse());
		assertThat(this.lock.heldLocks()).isEmpty();
	}

	/**
	 * A lock whose answer to {@code tryAcquireAsync} is held back until its caller's wait
	 * is interrupted, then delivered before the interrupt reaches the caller.
	 */
	private static DistributeLock answeringAtTheInterrupt(DefaultDistributeLock lock, AtomicBoolean grantedLate) {
		return new DistributeLock() {

			@Override
			public Optional<LockHandle> tryAcquire(LockRequest request) throws InterruptedException {
				return lock.tryAcquire(request);
			}

			@Override
			public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(LockRequest request) {
				CompletableFuture<Optional<LockHandle>> answer = lock.tryAcquireAsync(request);
				return new CompletableFuture<>() {

					@Override
					public Optional<LockHandle> get() throws InterruptedException, ExecutionException {
						try {
							return super.get();
						}
						catch (InterruptedException ex) {
							Optional<LockHandle> granted = answer.join();
							grantedLate.set(granted.isPresent());
							complete(granted);
							throw ex;
						}
					}

				};
			}

			@Override
			public boolean releaseLock(String lockKey, String lockValue) {
				return lock.releaseLock(lockKey, lockValue);
			}

		};
	}

	public static class Jobs {

		final AtomicInteger runs = new AtomicInteger();

		/**
		 * Another lock service the work calls, whose shutdown is the work's failure.
		 */
		final DefaultDistributeLock elsewhere = new DefaultDistributeLock(new MemoryLockBackend());

		@Lockable(key = "job.future", onBusy = OnBusy.SKIP)
		public CompletableFuture<String> future() {
			this.runs.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

		@Lockable(key = "job.waiting", onBusy = OnBusy.SKIP, waitTimeMs = 20_000)
		public CompletableFuture<String> futureWaiting() {
			this.runs.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		}

		@Lockable(key = "job.futureElsewhere", onBusy = OnBusy.SKIP)
		public CompletableFuture<String> futureCallingElsewhere() {
			this.runs.incrementAndGet();
			return this.elsewhere.tryAcquireAsync(LockRequest.of("job.elsewhere")).thenApply((held) -> "ran");
		}

		@Lockable(key = "job.monoElsewhere", onBusy = OnBusy.SKIP)
		public Mono<String> monoCallingElsewhere() {
			return Mono.defer(() -> {
				this.runs.incrementAndGet();
				return Mono.fromFuture(this.elsewhere.tryAcquireAsync(LockRequest.of("job.elsewhere")));
			}).map((held) -> "ran");
		}

		@Lockable(key = "job.fluxElsewhere", onBusy = OnBusy.SKIP)
		public Flux<String> fluxCallingElsewhere() {
			return Flux.defer(() -> {
				this.runs.incrementAndGet();
				return Mono.fromFuture(this.elsewhere.tryAcquireAsync(LockRequest.of("job.elsewhere")));
			}).map((held) -> "ran");
		}

		@Lockable(key = "job.mono", onBusy = OnBusy.SKIP)
		public Mono<String> mono() {
			return Mono.fromCallable(() -> {
				this.runs.incrementAndGet();
				return "ran";
			});
		}

		@Lockable(key = "job.flux", onBusy = OnBusy.SKIP)
		public Flux<String> flux() {
			return Flux.defer(() -> {
				this.runs.incrementAndGet();
				return Flux.just("ran");
			});
		}

	}

}
