package io.github.distributelock.reactive;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.distributelock.Closeables;
import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.LockServiceShutdownException;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.HeldBackAnswers;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Once {@code close()} has begun, a nested lock that would re-enter the pipeline's hold
 * through the Reactor context is refused with a {@link LockServiceShutdownException}, as
 * a thread's re-entry is ({@code ReentryDuringShutdownTests}): while the shutdown waited
 * for the acquisitions in flight, the pipeline entered its lock again, under a hold the
 * shutdown was about to release, although every other call was refused. The shutdown is
 * the answer before a kind the hold does not admit, as for a thread.
 */
class ReactiveReentryDuringShutdownTests {

	private static final long BOUND_SECONDS = 10;

	private static final Supplier<LockFailedException> BUSY = () -> new LockFailedException("busy", null, "k");

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private final MemoryLockBackend store = new MemoryLockBackend();

	private final ExecutorService threads = Executors.newCachedThreadPool();

	ReactiveReentryDuringShutdownTests() {
		this.closeables.add(this.threads::shutdownNow);
	}

	@Test
	void aPipelineReEnteringItsLockWhileTheShutdownDrainsIsRefused() throws Exception {
		HeldBackAnswers backend = new HeldBackAnswers(this.store, "reactive.in-flight");
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend));
		ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
		LockRequest both = LockRequest.all(LockRequest.of("reactive.b"), LockRequest.of("reactive.c"));
		CompletableFuture<Void> drainBegun = new CompletableFuture<>();
		CompletableFuture<String> single = nested(reactive, LockRequest.of("reactive.a"), drainBegun);
		CompletableFuture<String> multiKey = nested(reactive, both, drainBegun);
		LockRequest read = LockRequest.of("reactive.r").withMode(LockMode.READ);
		CompletableFuture<String> upgrade = nested(reactive, read, read.withMode(LockMode.WRITE), drainBegun);
		awaitHeld("reactive.a", "reactive.b", "reactive.c", "reactive.r");
		// An acquisition whose answer the store holds back keeps close() in its drain.
		Future<Optional<LockHandle>> inFlight = this.threads
			.submit(() -> lock.tryAcquire("reactive.in-flight", Duration.ofSeconds(BOUND_SECONDS), null));
		assertThat(backend.applied.await(BOUND_SECONDS, TimeUnit.SECONDS)).as("attempt applied").isTrue();
		Future<?> closing = this.threads.submit(() -> lock.close());
		try {
			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> inFlight.get(BOUND_SECONDS, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockServiceShutdownException.class);
			assertThat(closing).as("close(), draining").isNotDone();
			drainBegun.complete(null);
			assertThat(single).as("a single key the pipeline holds")
				.failsWithin(Duration.ofSeconds(BOUND_SECONDS))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(LockServiceShutdownException.class);
			assertThat(multiKey).as("a multi-key request whose keys the pipeline all holds")
				.failsWithin(Duration.ofSeconds(BOUND_SECONDS))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(LockServiceShutdownException.class);
			assertThat(upgrade).as("the write lock of a key the pipeline holds for reading")
				.failsWithin(Duration.ofSeconds(BOUND_SECONDS))
				.withThrowableThat()
				.havingCause()
				.isInstanceOf(LockServiceShutdownException.class);
			assertThat(closing).as("close(), draining").isNotDone();
		}
		finally {
			drainBegun.complete(null);
			backend.answer.complete(null);
		}
		closing.get(BOUND_SECONDS, TimeUnit.SECONDS);
		assertThat(this.store.isLocked("reactive.a")).isFalse();
		assertThat(this.store.isLocked("reactive.b")).isFalse();
		assertThat(this.store.isLocked("reactive.c")).isFalse();
		assertThat(this.store.isLocked("reactive.r")).isFalse();
		assertThat(this.store.isLocked("reactive.in-flight")).isFalse();
	}

	/**
	 * {@code request} held by a pipeline whose work, once {@code go} completes, asks for
	 * it again.
	 */
	private static CompletableFuture<String> nested(ReactiveDistributeLock reactive, LockRequest request,
			CompletableFuture<Void> go) {
		return nested(reactive, request, request, go);
	}

	/**
	 * {@code outer} held by a pipeline whose work, once {@code go} completes, asks for
	 * {@code inner}.
	 */
	private static CompletableFuture<String> nested(ReactiveDistributeLock reactive, LockRequest outer,
			LockRequest inner, CompletableFuture<Void> go) {
		return reactive
			.withLockMono(outer,
					(held) -> Mono.fromFuture(go)
						.then(reactive.withLockMono(inner, (entered) -> Mono.just("re-entered"), BUSY)),
					BUSY)
			.toFuture();
	}

	private void awaitHeld(String... keys) {
		for (String key : keys) {
			await().atMost(Duration.ofSeconds(BOUND_SECONDS)).until(() -> this.store.isLocked(key));
		}
	}

}
