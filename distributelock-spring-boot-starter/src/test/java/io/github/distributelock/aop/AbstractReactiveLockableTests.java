package io.github.distributelock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.Lockable;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.autoconfigure.DistributeLockReactiveAutoConfiguration;
import io.github.distributelock.reactive.ReactiveDistributeLock;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link Lockable @Lockable} on methods that return {@code Mono}, {@code Flux} and
 * {@code CompletableFuture}, on a real store: the lock is held while the work runs (read
 * from the store), each subscription locks on its own, and it is released when the work
 * completes, fails or is cancelled.
 */
abstract class AbstractReactiveLockableTests {

	/** The store under test, with the starter's auto-configuration. */
	protected abstract ApplicationContextRunner contextRunner();

	/** Whether the store holds the lock of {@code key}, read from the store itself. */
	protected abstract Predicate<String> lockedInStore(AssertableApplicationContext context);

	private ApplicationContextRunner runner() {
		return contextRunner()
			.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class,
					DistributeLockReactiveAutoConfiguration.class))
			.withUserConfiguration(WorkConfiguration.class);
	}

	@Test
	void concurrentSubscriptionsOfALockedMonoNeverOverlapAndTheKeyIsInTheStoreDuringTheWork() {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			Predicate<String> locked = lockedInStore(context);
			work.probe(() -> locked.test("mono.work_a"));
			Mono<String> first = work.mono("a");
			List<String> results = Flux.merge(first, work.mono("a"), first).collectList().block(Duration.ofSeconds(30));
			assertThat(results).containsExactly("a", "a", "a");
			assertThat(work.maxInside()).isOne();
			assertThat(work.probes()).hasSize(3).containsOnly(true);
			assertThat(locked.test("mono.work_a")).isFalse();
		});
	}

	@Test
	void fluxHoldsTheLockAcrossAllItsElements() {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			Predicate<String> locked = lockedInStore(context);
			work.probe(() -> locked.test("flux.work"));
			assertThat(work.flux().collectList().block(Duration.ofSeconds(30))).containsExactly(1, 2, 3);
			assertThat(work.probes()).hasSize(3).containsOnly(true);
			assertThat(locked.test("flux.work")).isFalse();
		});
	}

	@Test
	void anErrorReleasesAndReachesTheSubscriberUnchanged() {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			assertThatExceptionOfType(IllegalStateException.class)
				.isThrownBy(() -> work.failing().block(Duration.ofSeconds(30)))
				.withMessage("work failed");
			assertThat(lockedInStore(context).test("mono.failing")).isFalse();
		});
	}

	@Test
	void cancellingTheWorkReleasesAtOnce() {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			Predicate<String> locked = lockedInStore(context);
			Disposable subscription = work.never().subscribe();
			await().atMost(Duration.ofSeconds(10)).until(() -> locked.test("mono.never"));
			subscription.dispose();
			await().atMost(Duration.ofSeconds(10)).until(() -> !locked.test("mono.never"));
		});
	}

	@Test
	void cancellingAWaitLeavesNothingHeldAndABusyLockFailsWithTheMessageAndCode() throws Exception {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			Predicate<String> locked = lockedInStore(context);
			try (LockHandle held = takeElsewhere(context.getBean(DistributeLock.class), "mono.work_b")) {
				Disposable waiting = work.mono("b").subscribe();
				waiting.dispose();
				assertThatExceptionOfType(LockFailedException.class)
					.isThrownBy(() -> work.busy("b").block(Duration.ofSeconds(30)))
					.satisfies((ex) -> assertThat(ex.getCode()).isEqualTo("2301"));
				assertThat(held.isHeld()).isTrue();
			}
			assertThat(locked.test("mono.work_b")).isFalse();
			assertThat(work.mono("b").block(Duration.ofSeconds(30))).isEqualTo("b");
		});
	}

	@Test
	void aNestedLockOnTheSameKeyInsideThePipelineEntersAtOnce() {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			assertThat(work.outer().block(Duration.ofSeconds(30))).isEqualTo("inner");
			assertThat(lockedInStore(context).test("nested")).isFalse();
		});
	}

	/**
	 * The interceptor and the {@code ReactiveDistributeLock} bean lock through one lock
	 * service: a {@code @Lockable} method on a key the pipeline holds through the bean
	 * enters at once (it waits for nothing) instead of waiting for its own pipeline.
	 */
	@Test
	void aLockableMethodInsideTheReactiveBeansLockOnTheSameKeyEntersAtOnce() {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			ReactiveDistributeLock reactive = context.getBean(ReactiveDistributeLock.class);
			assertThat(reactive
				.withLockMono(io.github.distributelock.LockRequest.of("nested"), (handle) -> work.inner(),
						() -> new IllegalStateException("busy"))
				.block(Duration.ofSeconds(30))).isEqualTo("inner");
			await().atMost(Duration.ofSeconds(10)).until(() -> !lockedInStore(context).test("nested"));
		});
	}

	/**
	 * A locked {@code Mono} goes on on the thread that completed its release, a thread of
	 * the store's client: a locked future method called there does not block it waiting
	 * for an answer that thread must deliver.
	 */
	@Test
	void aFutureMethodCalledOnTheThreadThatEndedALockedMonoGetsItsLock() {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			work.probe(() -> true);
			assertThat(work.inner().then(Mono.fromFuture(work::future)).block(Duration.ofSeconds(30)))
				.isEqualTo("done");
			await().atMost(Duration.ofSeconds(10)).until(() -> !lockedInStore(context).test("future.work"));
		});
	}

	@Test
	void aFutureFromSupplyAsyncHoldsTheLockUntilItCompletes() {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			Predicate<String> locked = lockedInStore(context);
			work.probe(() -> locked.test("future.work"));
			CompletableFuture<String> first = work.future();
			CompletableFuture<String> second = work.future();
			assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(work.maxInside()).isOne();
			assertThat(work.probes()).hasSize(2).containsOnly(true);
			await().atMost(Duration.ofSeconds(10)).until(() -> !locked.test("future.work"));
		});
	}

	@Test
	void theReactiveApiRunsAPublisherUnderTheLock() {
		runner().run((context) -> {
			ReactiveDistributeLock reactive = context.getBean(ReactiveDistributeLock.class);
			Predicate<String> locked = lockedInStore(context);
			Boolean heldDuringTheWork = reactive
				.withLockMono(io.github.distributelock.LockRequest.of("reactive.api"),
						(handle) -> Mono.fromCallable(() -> locked.test("reactive.api") && handle.isHeld())
							.subscribeOn(Schedulers.boundedElastic()),
						() -> new IllegalStateException("busy"))
				.block(Duration.ofSeconds(30));
			assertThat(heldDuringTheWork).isTrue();
			assertThat(locked.test("reactive.api")).isFalse();
		});
	}

	/**
	 * Issue 15's finding: a locked call that waits must not hold the event loop. A server
	 * with one I/O thread answers an unrelated request while the locked call waits.
	 */
	@Test
	void anEventLoopWithOneThreadAnswersAnotherRequestWhileALockedCallWaits() throws Exception {
		runner().run((context) -> {
			Work work = context.getBean(Work.class);
			LoopResources loop = LoopResources.create("one-io-thread", 1, true);
			DisposableServer server = HttpServer.create()
				.host("127.0.0.1")
				.port(0)
				.runOn(loop)
				.route((routes) -> routes.get("/locked", (request, response) -> response.sendString(work.mono("c")))
					.get("/ping", (request, response) -> response.sendString(Mono.just("pong"))))
				.bindNow();
			try (LockHandle held = takeElsewhere(context.getBean(DistributeLock.class), "mono.work_c")) {
				HttpClient client = HttpClient.create().baseUrl("http://127.0.0.1:" + server.port());
				CompletableFuture<String> locked = client.get()
					.uri("/locked")
					.responseContent()
					.aggregate()
					.asString()
					.toFuture();
				await().atMost(Duration.ofSeconds(10)).until(() -> work.waiting() > 0);
				String pong = client.get()
					.uri("/ping")
					.responseContent()
					.aggregate()
					.asString()
					.block(Duration.ofSeconds(10));
				assertThat(pong).isEqualTo("pong");
				assertThat(locked).isNotDone();
				held.close();
				assertThat(locked.get(30, TimeUnit.SECONDS)).isEqualTo("c");
			}
			finally {
				server.disposeNow();
				loop.disposeLater().block(Duration.ofSeconds(10));
			}
		});
	}

	private static LockHandle takeElsewhere(DistributeLock lock, String key) throws Exception {
		ExecutorService other = Executors.newSingleThreadExecutor();
		try {
			return other.submit(() -> lock.tryAcquire(key, Duration.ZERO, null).orElseThrow())
				.get(30, TimeUnit.SECONDS);
		}
		finally {
			other.shutdown();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class WorkConfiguration {

		@Bean
		Work work() {
			return new Work();
		}

	}

	/**
	 * Work that records how many subscriptions run it at once, and what a probe of the
	 * store says while it runs.
	 */
	public static class Work {

		final AtomicInteger inside = new AtomicInteger();

		final AtomicInteger maxInside = new AtomicInteger();

		final AtomicInteger called = new AtomicInteger();

		final List<Boolean> probes = new CopyOnWriteArrayList<>();

		volatile java.util.function.BooleanSupplier probe = () -> true;

		@Autowired
		@Lazy
		Work self;

		private final ExecutorService executor = Executors.newFixedThreadPool(2);

		@Lockable(key = "mono.work", fields = "id", waitTimeMs = 20_000)
		public Mono<String> mono(String id) {
			this.called.incrementAndGet();
			return Mono.fromCallable(this::enter)
				.delayElement(Duration.ofMillis(150))
				.flatMap((entered) -> probed())
				.map((probed) -> {
					this.inside.decrementAndGet();
					return id;
				});
		}

		@Lockable(key = "mono.work", fields = "id", failMsg = "Busy|2301")
		public Mono<String> busy(String id) {
			return Mono.just(id);
		}

		@Lockable(key = "flux.work", waitTimeMs = 20_000)
		public Flux<Integer> flux() {
			return Flux.just(1, 2, 3)
				.delayElements(Duration.ofMillis(50))
				.concatMap((element) -> probed().thenReturn(element));
		}

		@Lockable(key = "mono.failing")
		public Mono<String> failing() {
			return Mono.error(new IllegalStateException("work failed"));
		}

		@Lockable(key = "mono.never")
		public Mono<String> never() {
			return Mono.never();
		}

		@Lockable(key = "nested", waitTimeMs = 20_000)
		public Mono<String> outer() {
			return Mono.defer(() -> this.self.inner());
		}

		/**
		 * Waits for nothing: it must enter because its caller's pipeline holds the key.
		 */
		@Lockable(key = "nested")
		public Mono<String> inner() {
			return Mono.just("inner");
		}

		@Lockable(key = "future.work", waitTimeMs = 20_000)
		public CompletableFuture<String> future() {
			return CompletableFuture.supplyAsync(() -> {
				enter();
				try {
					Thread.sleep(150);
					this.probes.add(this.probe.getAsBoolean());
					return "done";
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException(ex);
				}
				finally {
					this.inside.decrementAndGet();
				}
			}, this.executor);
		}

		/** Reads the store off the Reactor thread, as a blocking call must be. */
		private Mono<Boolean> probed() {
			return Mono.fromCallable(this.probe::getAsBoolean)
				.subscribeOn(Schedulers.boundedElastic())
				.doOnNext(this.probes::add);
		}

		/** How many calls built a locked publisher, whose subscription then waits. */
		public int waiting() {
			return this.called.get();
		}

		public int maxInside() {
			return this.maxInside.get();
		}

		public List<Boolean> probes() {
			return this.probes;
		}

		public void probe(java.util.function.BooleanSupplier probe) {
			this.probe = probe;
		}

		private boolean enter() {
			int now = this.inside.incrementAndGet();
			this.maxInside.accumulateAndGet(now, Math::max);
			return true;
		}

	}

}
