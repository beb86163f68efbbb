package io.github.distributelock.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.distributelock.Lockable;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@link Lockable @Lockable} method returning a {@code CompletableFuture}, called on an
 * event loop, is called on the interceptor's executor once its lock is held; an executor
 * that refuses the call (shut down, or its queue full) fails the future and gives the
 * lock back.
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

	}

}
