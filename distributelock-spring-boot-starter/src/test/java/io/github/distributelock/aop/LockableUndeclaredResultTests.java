package io.github.distributelock.aop;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.Lockable;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@link Lockable @Lockable} method declared to return {@code Object} (or a type
 * variable) is locked while it runs; a result whose work runs later, out of that lock (a
 * publisher, a stage still running), is refused rather than handed back unprotected.
 */
class LockableUndeclaredResultTests {

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final DefaultDistributeLock lock = new DefaultDistributeLock(this.store);

	private final Jobs target = new Jobs();

	private final Jobs jobs = LockableProxies.proxy(this.target, this.lock);

	@AfterEach
	void closeLock() {
		this.lock.close();
	}

	@Test
	void aPublisherReturnedAsObjectIsRefusedAndItsWorkNeverRuns() throws Exception {
		assertThatExceptionOfType(InvalidLockableException.class).isThrownBy(() -> this.jobs.run(this.target.mono()))
			.withMessageStartingWith("@Lockable on " + Jobs.class.getName() + ".run: it is declared to return "
					+ "java.lang.Object but returned a reactive type (reactor.core.publisher.")
			.withMessageContaining("Declare the return type");
		assertThatExceptionOfType(InvalidLockableException.class)
			.isThrownBy(() -> this.jobs.generic(this.target.flux()));
		assertThat(this.target.runs).hasValue(0);
		try (DefaultDistributeLock otherInstance = new DefaultDistributeLock(this.store)) {
			assertThat(otherInstance.tryAcquire("job.object", Duration.ZERO, null)).isPresent();
		}
	}

	@Test
	void aRunningStageReturnedAsObjectIsRefused() {
		CompletableFuture<String> running = new CompletableFuture<>();
		assertThatExceptionOfType(InvalidLockableException.class).isThrownBy(() -> this.jobs.run(running))
			.withMessageContaining("returned a stage that was still running (java.util.concurrent.CompletableFuture)");
		running.complete("done");
	}

	/**
	 * A {@code CompletionStage} that is not a {@code Future} cannot be asked whether it
	 * is done, so it is refused done or not: the message says so rather than that it was
	 * running, and names the declaration that holds the lock until it completes
	 * ({@code CompletionStage}: a stage type of its own is refused at startup).
	 */
	@Test
	void aStageThatIsNotAFutureReturnedAsObjectIsRefusedForWhatCannotBeToldOfIt() {
		CompletionStage<String> done = stageOf(CompletableFuture.completedFuture("done"));
		assertThatExceptionOfType(InvalidLockableException.class).isThrownBy(() -> this.jobs.run(done))
			.satisfies((ex) -> {
				assertThat(ex.getProblem())
					.startsWith("it is declared to return java.lang.Object but returned a "
							+ "CompletionStage that is not a Future (" + done.getClass().getName() + "), which cannot "
							+ "tell whether its work is done: it may go on after the call, out of the lock; the result "
							+ "was discarded")
					.doesNotContain("still running");
				assertThat(ex.getFix()).isEqualTo("Declare the method to return CompletionStage (a stage type of "
						+ "its own is refused at startup): the lock is then held until the stage completes");
			});
	}

	@Test
	void aRunningFutureThatIsNotAStageReturnedAsObjectIsRefusedAsAFuture() {
		FutureTask<String> running = new FutureTask<>(() -> "done");
		assertThatExceptionOfType(InvalidLockableException.class).isThrownBy(() -> this.jobs.run(running))
			.satisfies((ex) -> {
				assertThat(ex.getProblem()).startsWith("it is declared to return java.lang.Object but returned a "
						+ "Future that was still running (java.util.concurrent.FutureTask)");
				assertThat(ex.getFix()).isEqualTo("Return a CompletableFuture, and declare the method to return "
						+ "CompletableFuture or CompletionStage: the lock is then held until it completes");
			});
		running.run();
	}

	@Test
	void theTroubleshootingPageQuotesTheRefusal() throws IOException {
		Path page = Path.of(System.getProperty("basedir", "."), "..", "docs", "troubleshooting.md").normalize();
		assertThatExceptionOfType(InvalidLockableException.class).isThrownBy(() -> this.jobs.run(this.target.mono()))
			.satisfies((ex) -> assertThat(Files.readString(page, StandardCharsets.UTF_8))
				.contains("`@Lockable on ...: " + ex.getProblem().substring(0, ex.getProblem().indexOf(" ("))));
		CompletionStage<String> stage = stageOf(new CompletableFuture<>());
		assertThatExceptionOfType(InvalidLockableException.class).isThrownBy(() -> this.jobs.run(stage))
			.satisfies((ex) -> assertThat(Files.readString(page, StandardCharsets.UTF_8)).contains("`" + ex.getProblem()
				.substring(ex.getProblem().indexOf("a CompletionStage"), ex.getProblem().indexOf(" ("))));
	}

	/**
	 * A {@code CompletionStage} that is not a {@code Future}, as a stage of another
	 * library may be, whose calls go to {@code future}.
	 */
	@SuppressWarnings("unchecked")
	private static CompletionStage<String> stageOf(CompletableFuture<String> future) {
		return (CompletionStage<String>) Proxy.newProxyInstance(CompletionStage.class.getClassLoader(),
				new Class<?>[] { CompletionStage.class }, (proxy, method, args) -> method.invoke(future, args));
	}

	@Test
	void aValueOrAFinishedStageReturnedAsObjectIsHandedBack() {
		assertThat(this.jobs.run("value")).isEqualTo("value");
		CompletableFuture<String> done = CompletableFuture.completedFuture("done");
		assertThat(this.jobs.run(done)).isSameAs(done);
		assertThat(this.jobs.generic(42)).isEqualTo(42);
		assertThat(this.jobs.run(null)).isNull();
	}

	public static class Jobs {

		final AtomicInteger runs = new AtomicInteger();

		@Lockable(key = "job.object")
		public Object run(Object result) {
			return result;
		}

		@Lockable(key = "job.generic")
		public <T> T generic(T result) {
			return result;
		}

		Mono<String> mono() {
			return Mono.fromCallable(() -> {
				this.runs.incrementAndGet();
				return "ran";
			});
		}

		Flux<String> flux() {
			return Flux.defer(() -> {
				this.runs.incrementAndGet();
				return Flux.just("ran");
			});
		}

	}

}
