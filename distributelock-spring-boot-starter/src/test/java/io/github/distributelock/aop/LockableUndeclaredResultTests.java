package io.github.distributelock.aop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
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

	@Test
	void theTroubleshootingPageQuotesTheRefusal() throws IOException {
		Path page = Path.of(System.getProperty("basedir", "."), "..", "docs", "troubleshooting.md").normalize();
		assertThatExceptionOfType(InvalidLockableException.class).isThrownBy(() -> this.jobs.run(this.target.mono()))
			.satisfies((ex) -> assertThat(Files.readString(page, StandardCharsets.UTF_8))
				.contains("`@Lockable on ...: " + ex.getProblem().substring(0, ex.getProblem().indexOf(" ("))));
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
