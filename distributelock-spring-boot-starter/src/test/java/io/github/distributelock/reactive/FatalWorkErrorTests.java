package io.github.distributelock.reactive;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A work that fails with an error Reactor counts as fatal to the JVM, which it throws
 * instead of signalling ({@code Exceptions.throwIfFatal}): a {@link LinkageError} (a
 * class whose static initializer failed, one missing from the class path) or a
 * {@link StackOverflowError}. Thrown on the parallel thread that subscribes the work, it
 * reached no one: the subscription never ended, and the lock stayed held, renewed by the
 * watchdog, until the lock service closed. The subscriber now gets the error, and the
 * lock is released.
 */
class FatalWorkErrorTests {

	private static final Duration BOUND = Duration.ofSeconds(10);

	private static final Supplier<LockFailedException> BUSY = () -> new LockFailedException("busy", null, "fatal");

	@Test
	void aWorkFunctionThrowingALinkageErrorFailsTheSubscriptionAndReleasesTheLock() throws Exception {
		assertFailsAndReleases("fatal.function", (handle) -> {
			throw new ExceptionInInitializerError("static initializer failed");
		}, ExceptionInInitializerError.class);
	}

	@Test
	void aWorkFailingWithALinkageErrorWhenSubscribedFailsTheSubscriptionAndReleasesTheLock() throws Exception {
		assertFailsAndReleases("fatal.callable", (handle) -> Mono.fromCallable(() -> {
			throw new NoClassDefFoundError("com/shop/Missing");
		}), NoClassDefFoundError.class);
	}

	@Test
	void aWorkOverflowingItsStackWhenSubscribedFailsTheSubscriptionAndReleasesTheLock() throws Exception {
		assertFailsAndReleases("fatal.stack", (handle) -> Mono.fromCallable(() -> {
			throw new StackOverflowError();
		}), StackOverflowError.class);
	}

	private void assertFailsAndReleases(String key, Function<LockHandle, Publisher<String>> work,
			Class<? extends Throwable> failure) throws Exception {
		try (DefaultDistributeLock lock = new DefaultDistributeLock(new MemoryLockBackend())) {
			ReactiveDistributeLock reactive = new DefaultReactiveDistributeLock(() -> lock);
			CompletableFuture<String> mono = reactive
				.withLockMono(LockRequest.of(key + ".mono"), (handle) -> Mono.from(work.apply(handle)), BUSY)
				.toFuture();
			CompletableFuture<List<String>> flux = reactive.withLock(LockRequest.of(key + ".flux"), work, BUSY)
				.collectList()
				.toFuture();
			assertThat(mono).failsWithin(BOUND).withThrowableThat().havingCause().isInstanceOf(failure);
			assertThat(flux).failsWithin(BOUND).withThrowableThat().havingCause().isInstanceOf(failure);
			await().atMost(BOUND).until(() -> lock.heldLocks().isEmpty());
		}
	}

}
