package io.github.distributelock.benchmarks.ours;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.benchmarks.library.NonBlockingLockLibrary;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.reactive.DefaultReactiveDistributeLock;
import io.github.distributelock.reactive.ReactiveDistributeLock;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Our {@link ReactiveDistributeLock} on the same engine as the blocking adapter: the
 * uncontended cycle runs a {@code Mono} under the lock with {@code withLockMono}, or
 * takes the lock as a {@code Mono<LockHandle>} and releases it with
 * {@code releaseAsync()}; the measuring thread subscribes and waits for the result (that
 * harness times on threads). Contended callers are subscriptions that repeat their cycle,
 * with no thread of their own ({@link NonBlockingLockLibrary}).
 */
public final class ReactiveLibrary implements NonBlockingLockLibrary {

	/** What this adapter runs with, for the page. */
	public static final LibraryConfiguration CONFIGURATION = new LibraryConfiguration("distributelock",
			"`new DefaultReactiveDistributeLock(() -> lock)` over the same `DefaultDistributeLock` on "
					+ "`RedisLockBackend` as the blocking row",
			"the starter's defaults",
			"uncontended: `withLockMono(LockRequest.of(key).withWaitTime(10 s), handle -> Mono.just(key), busy)"
					+ ".block()`; contended, per caller (a subscription, no thread of its own): "
					+ "`withLockMono(LockRequest.of(key).withWaitTime(wait), handle -> Mono.fromRunnable(work), busy)"
					+ ".repeat()`");

	private final DefaultDistributeLock lock;

	private final ReactiveDistributeLock reactive;

	/** What the variant without {@code withLockMono} runs with, for the page. */
	public static final LibraryConfiguration ACQUIRE_ONLY = new LibraryConfiguration("distributelock",
			CONFIGURATION.client(), "the starter's defaults",
			"uncontended: `tryAcquire(LockRequest.of(key).withWaitTime(10 s)).block()`, unlock "
					+ "`Mono.fromFuture(handle::releaseAsync).block()`; contended, per caller (a subscription): "
					+ "`tryAcquire(LockRequest.of(key).withWaitTime(wait)).flatMap(handle -> "
					+ "Mono.fromRunnable(work).then(Mono.fromFuture(handle::releaseAsync))).repeat()`");

	private final AutoCloseable resources;

	private final boolean withLockMono;

	/**
	 * Creates the adapter.
	 * @param lock the engine
	 * @param withLockMono whether the uncontended cycle runs its work with
	 * {@code withLockMono}, or takes and releases the lock as the contended loop does
	 * @param resources what to close after the engine
	 */
	public ReactiveLibrary(DefaultDistributeLock lock, boolean withLockMono, AutoCloseable resources) {
		this.lock = lock;
		this.reactive = new DefaultReactiveDistributeLock(() -> lock);
		this.withLockMono = withLockMono;
		this.resources = resources;
	}

	@Override
	public @Nullable Release lock(String key, Duration wait) {
		LockHandle handle = this.reactive.tryAcquire(LockRequest.of(key).withWaitTime(wait)).block();
		if (handle == null) {
			return null;
		}
		return () -> Mono.fromFuture(handle::releaseAsync).block();
	}

	@Override
	public void lockAndUnlock(String key) throws Exception {
		if (!this.withLockMono) {
			NonBlockingLockLibrary.super.lockAndUnlock(key);
			return;
		}
		String done = this.reactive
			.withLockMono(LockRequest.of(key).withWaitTime(UNCONTENDED_WAIT), (handle) -> Mono.just(key),
					() -> new IllegalStateException("Uncontended lock '" + key + "' was not taken"))
			.block();
		if (done == null) {
			throw new IllegalStateException("The work under lock '" + key + "' gave nothing");
		}
	}

	@Override
	public CompletableFuture<Void> repeatUnderLock(String key, Duration wait, Runnable work, Runnable timedOut,
			BooleanSupplier stop) {
		LockRequest request = LockRequest.of(key).withWaitTime(wait);
		Mono<Boolean> cycle = this.withLockMono
				? this.reactive
					.withLockMono(request, (handle) -> Mono.fromRunnable(work).thenReturn(Boolean.TRUE), NotTaken::new)
					.onErrorResume(NotTaken.class, (notTaken) -> Mono.just(Boolean.FALSE))
				: this.reactive.tryAcquire(request)
					.flatMap((handle) -> Mono.fromRunnable(work)
						.then(Mono.fromFuture(handle::releaseAsync))
						.thenReturn(Boolean.TRUE))
					.defaultIfEmpty(Boolean.FALSE);
		return cycle.doOnNext((taken) -> {
			if (!taken) {
				timedOut.run();
			}
		}).repeat(() -> !stop.getAsBoolean()).then().toFuture();
	}

	@Override
	public void close() throws Exception {
		this.lock.close();
		this.resources.close();
	}

	/** A wait of the contended loop that ended without the lock. */
	private static final class NotTaken extends RuntimeException {

		NotTaken() {
			super(null, null, false, false);
		}

	}

}
