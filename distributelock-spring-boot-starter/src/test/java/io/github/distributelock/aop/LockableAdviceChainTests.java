package io.github.distributelock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.distributelock.Lockable;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.interceptor.ExposeInvocationInterceptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Lockable @Lockable} inside a chain of other advice, as an application with
 * {@code @Aspect}s has it: the advice inside the lock runs with the invocation exposed by
 * {@link ExposeInvocationInterceptor}, which Spring's AspectJ advice reads, wherever the
 * interceptor goes on with the chain.
 */
class LockableAdviceChainTests {

	private final DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend());

	/** Whether the advice inside the lock found the invocation exposed, at each call. */
	private final List<Boolean> exposed = new CopyOnWriteArrayList<>();

	private final Jobs jobs = advised(new Jobs());

	@AfterEach
	void closeLock() {
		this.lock.close();
	}

	@Test
	void aFutureMethodRunsTheAdviceInsideItWithTheInvocationExposedOnABlockingThread() throws Exception {
		assertThat(this.jobs.future().get(5, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(this.exposed).containsExactly(true);
	}

	/**
	 * Called on an event loop, the method is called on another thread once the lock is
	 * held: the invocation is exposed there too.
	 */
	@Test
	void aFutureMethodCalledOnAnEventLoopRunsTheAdviceInsideItWithTheInvocationExposed() {
		CompletableFuture<String> result = onAnEventLoop(this.jobs::future).thenCompose((future) -> future);
		assertThat(result).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("done");
		assertThat(this.exposed).containsExactly(true);
	}

	/**
	 * A reactive method is called on the caller's thread, the chain with it; only its
	 * subscriptions run under the lock.
	 */
	@Test
	void monoAndFluxMethodsCalledOnAnEventLoopRunTheAdviceInsideThemWithTheInvocationExposed() {
		assertThat(onAnEventLoop(this.jobs::mono).thenCompose(Mono::toFuture)).succeedsWithin(Duration.ofSeconds(5))
			.isEqualTo("done");
		assertThat(onAnEventLoop(this.jobs::flux).thenCompose((flux) -> flux.collectList().toFuture()))
			.succeedsWithin(Duration.ofSeconds(5))
			.isEqualTo(List.of("done"));
		assertThat(this.exposed).containsExactly(true, true);
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

	/**
	 * The target behind the chain an AspectJ auto-proxy builds: the invocation exposed
	 * first, then {@code @Lockable}, then advice that reads the exposed invocation as
	 * {@code @Before} and {@code @Around} advice does.
	 */
	private Jobs advised(Jobs target) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvice(ExposeInvocationInterceptor.INSTANCE);
		factory.addAdvice(new LockableMethodInterceptor(new LockKeyResolver("_", "busy|1"), () -> this.lock));
		factory.addAdvice((MethodInterceptor) (invocation) -> {
			boolean found;
			try {
				found = ExposeInvocationInterceptor.currentInvocation() == invocation;
			}
			catch (IllegalStateException noMethodInvocationFound) {
				found = false;
			}
			this.exposed.add(found);
			return invocation.proceed();
		});
		return (Jobs) factory.getProxy();
	}

	public static class Jobs {

		@Lockable(key = "chain.future")
		public CompletableFuture<String> future() {
			return CompletableFuture.completedFuture("done");
		}

		@Lockable(key = "chain.mono")
		public Mono<String> mono() {
			return Mono.just("done");
		}

		@Lockable(key = "chain.flux")
		public Flux<String> flux() {
			return Flux.just("done");
		}

	}

}
