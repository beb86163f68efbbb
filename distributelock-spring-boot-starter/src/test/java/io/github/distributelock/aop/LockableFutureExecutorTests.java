package io.github.distributelock.aop;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.distributelock.Lockable;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A {@link Lockable @Lockable} method returning a {@code CompletableFuture}, called on an
 * event loop, is called on the interceptor's executor once its lock is held; an executor
 * that refuses the call (shut down, or its queue full) fails the future and gives the
 * lock back. An executor that accepts the call and then drops it unrun fails the future
 * and gives the lock back too, and one that is known to drop calls quietly is refused. A
 * cancel of the future releases the lock at once, wherever the call is: it does not stop
 * work the method has started, which goes on without the lock (docs/lockable.md).
 */
class LockableFutureExecutorTests {

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = new DefaultDistributeLock(this.store);

	private final Jobs target = new Jobs();

	@AfterEach
	void closeLock() {
		this.lock.close();
	}

	@Test
	void aFutureMethodWhoseCallTheExecutorRefusesFailsAndLeavesNoLockHeld() {
		assertRefusedCallFailsAndLeavesNoLockHeld(new RejectedExecutionException("executor shut down"));
	}

	/**
	 * An executor may refuse by an exception of its own (a closed one throws
	 * {@code IllegalStateException}): the future is failed and the lock given back all
	 * the same, where the future never completed and the lock stayed held until the lock
	 * service closed.
	 */
	@Test
	void aFutureMethodWhoseCallTheExecutorRefusesByAnotherExceptionFailsAndLeavesNoLockHeld() {
		assertRefusedCallFailsAndLeavesNoLockHeld(new IllegalStateException("executor closed"));
	}

	private void assertRefusedCallFailsAndLeavesNoLockHeld(RuntimeException refusal) {
		Jobs jobs = proxy((task) -> {
			throw refusal;
		});
		CompletableFuture<String> result = onAnEventLoop(jobs::future).thenCompose((future) -> future);
		assertThat(result).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.withRootCauseExactlyInstanceOf(refusal.getClass());
		assertThat(this.target.runs).hasValue(0);
		assertThat(this.store.isLocked("executor.future")).isFalse();
		assertThat(this.lock.heldLocks()).isEmpty();
	}

	/**
	 * {@code shutdownNow()} hands back the queued call unrun, and the application drops
	 * it: the lock stayed held, renewed by the watchdog, until the lock service closed,
	 * and the future never completed.
	 */
	@Test
	void aFutureMethodWhoseQueuedCallShutdownNowDropsFailsAndLeavesNoLockHeld() throws InterruptedException {
		try (OccupiedPool occupied = new OccupiedPool()) {
			CompletableFuture<String> result = onAnEventLoop(proxy(occupied.pool)::future)
				.thenCompose((future) -> future);
			occupied.awaitQueued();
			assertThat(occupied.pool.shutdownNow()).hasSize(1);
			assertDroppedCallFailsAndLeavesNoLockHeld(result);
		}
	}

	/**
	 * An executor may take a task and forget it, as a discard policy set after the
	 * interceptor was created, or an executor of the application's own, does.
	 */
	@Test
	void aFutureMethodWhoseCallTheExecutorDropsQuietlyFailsAndLeavesNoLockHeld() {
		CompletableFuture<String> result = onAnEventLoop(proxy((task) -> {
		})::future).thenCompose((future) -> future);
		assertDroppedCallFailsAndLeavesNoLockHeld(result);
	}

	/**
	 * A pool whose policy drops a call quietly when its queue is full, or runs it on the
	 * thread that hands it over (the event loop, or the store client's thread that
	 * granted the lock, which the executor is there to keep the method off), is refused
	 * when the interceptor is created, with what to use instead.
	 */
	@ParameterizedTest
	@ValueSource(classes = { ThreadPoolExecutor.DiscardPolicy.class, ThreadPoolExecutor.DiscardOldestPolicy.class,
			ThreadPoolExecutor.CallerRunsPolicy.class })
	void aPoolThatDropsOrRunsRefusedCallsOnTheCallerIsRefused(Class<? extends RejectedExecutionHandler> policy)
			throws Exception {
		ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1),
				policy.getDeclaredConstructor().newInstance());
		try {
			assertThatIllegalArgumentException().isThrownBy(() -> proxy(pool))
				.withMessageContaining(policy.getSimpleName())
				.withMessageContaining("AbortPolicy");
		}
		finally {
			pool.shutdownNow();
		}
	}

	/**
	 * A cancel while the call waits in the executor's queue: the lock stayed held until
	 * the executor got to the call, which then did not run.
	 */
	@Test
	void cancellingTheFutureOfACallQueuedInTheExecutorReleasesAtOnce() throws Exception {
		try (OccupiedPool occupied = new OccupiedPool()) {
			CompletableFuture<String> result = onAnEventLoop(proxy(occupied.pool)::future).get(10, TimeUnit.SECONDS);
			occupied.awaitQueued();
			assertThat(this.store.isLocked("executor.future")).isTrue();
			result.cancel(true);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				assertThat(this.store.isLocked("executor.future")).isFalse();
				assertThat(this.lock.heldLocks()).isEmpty();
			});
			occupied.free();
			await().atMost(Duration.ofSeconds(10)).until(() -> occupied.pool.getCompletedTaskCount() == 2);
			assertThat(this.target.runs).hasValue(0);
		}
	}

	/**
	 * A cancel while the method's work runs, called from a thread that may block (the
	 * method's own future is returned) or on an event loop: the lock is released at once,
	 * and the work, which {@code cancel} does not stop, goes on without it.
	 */
	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void cancellingTheFutureWhileTheWorkRunsReleasesAtOnceAndLeavesTheWorkRunning(boolean onAnEventLoop)
			throws Exception {
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			Jobs jobs = proxy(pool);
			this.target.worker = pool;
			CompletableFuture<String> result = onAnEventLoop ? onAnEventLoop(jobs::slow).get(10, TimeUnit.SECONDS)
					: jobs.slow();
			assertThat(this.target.started.await(10, TimeUnit.SECONDS)).isTrue();
			assertThat(this.store.isLocked("executor.slow")).isTrue();
			result.cancel(true);
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
				assertThat(this.store.isLocked("executor.slow")).isFalse();
				assertThat(this.lock.heldLocks()).isEmpty();
			});
			assertThat(this.target.ended.getCount()).isOne();
			this.target.finish.countDown();
			assertThat(this.target.ended.await(10, TimeUnit.SECONDS)).isTrue();
		}
		finally {
			this.target.finish.countDown();
			pool.shutdownNow();
			assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
	}

	/**
	 * The dropped call is found once it can no longer run: when the garbage collector
	 * finds it unreachable, which the test asks for while it waits.
	 */
	private void assertDroppedCallFailsAndLeavesNoLockHeld(CompletableFuture<String> result) {
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
			System.gc();
			assertThat(result).isDone();
		});
		assertThat(result).failsWithin(Duration.ZERO)
			.withThrowableThat()
			.havingRootCause()
			.isInstanceOf(RejectedExecutionException.class)
			.withMessageContaining("lock 'executor.future'")
			.withMessageContaining("without running it");
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(this.store.isLocked("executor.future")).isFalse();
			assertThat(this.lock.heldLocks()).isEmpty();
		});
		assertThat(this.target.runs).hasValue(0);
	}

	private static void awaitQuietly(CountDownLatch latch) {
		try {
			latch.await(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * A pool of one thread, kept busy until {@link #free()}, with room for one call in
	 * its queue; closed, it frees its thread and ends.
	 */
	private static final class OccupiedPool implements AutoCloseable {

		final ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1));

		private final CountDownLatch occupied = new CountDownLatch(1);

		OccupiedPool() {
			this.pool.execute(() -> awaitQuietly(this.occupied));
		}

		void awaitQueued() {
			await().atMost(Duration.ofSeconds(10)).until(() -> this.pool.getQueue().size() == 1);
		}

		void free() {
			this.occupied.countDown();
		}

		@Override
		public void close() throws InterruptedException {
			free();
			this.pool.shutdownNow();
			assertThat(this.pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}

	}

	private Jobs proxy(Executor executor) {
		ProxyFactory factory = new ProxyFactory(this.target);
		factory.setProxyTargetClass(true);
		factory.addAdvice(new LockableMethodInterceptor(new LockKeyResolver("_", "busy|1"), () -> this.lock, executor));
		return (Jobs) factory.getProxy();
	}

	private static <T> CompletableFuture<T> onAnEventLoop(Supplier<T> call) {
		CompletableFuture<T> called = new CompletableFuture<>();
		Schedulers.parallel().schedule(() -> {
			try {
				called.complete(call.get());
			}
			catch (Throwable ex) {
				called.completeExceptionally(ex);
			}
		});
		return called;
	}

	public static class Jobs {

		final AtomicInteger runs = new AtomicInteger();

		@Lockable(key = "executor.future")
		public CompletableFuture<String> future() {
			this.runs.incrementAndGet();
			return CompletableFuture.completedFuture("done");
		}

		final CountDownLatch started = new CountDownLatch(1);

		final CountDownLatch finish = new CountDownLatch(1);

		volatile Executor worker = Runnable::run;

		final CountDownLatch ended = new CountDownLatch(1);

		@Lockable(key = "executor.slow")
		public CompletableFuture<String> slow() {
			return CompletableFuture.supplyAsync(() -> {
				this.started.countDown();
				awaitQuietly(this.finish);
				this.ended.countDown();
				return "slow";
			}, this.worker);
		}

	}

}
