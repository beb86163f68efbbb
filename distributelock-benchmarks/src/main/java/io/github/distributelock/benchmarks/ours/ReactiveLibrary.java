package io.github.distributelock.benchmarks.ours;

import java.time.Duration;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.reactive.DefaultReactiveDistributeLock;
import io.github.distributelock.reactive.ReactiveDistributeLock;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Our {@link ReactiveDistributeLock} on the same engine as the blocking adapter: the
 * uncontended cycle runs a {@code Mono} under the lock with {@code withLockMono}; the
 * contended loop takes the lock as a {@code Mono<LockHandle>} and releases it with
 * {@code releaseAsync()}. The measuring thread subscribes and waits for the result (the
 * harnesses time and count on threads); inside, the wait for the lock parks no thread.
 */
public final class ReactiveLibrary implements LockLibrary {

	/** What this adapter runs with, for the page. */
	public static final LibraryConfiguration CONFIGURATION = new LibraryConfiguration("distributelock",
			"`new DefaultReactiveDistributeLock(() -> lock)` over the same `DefaultDistributeLock` on "
					+ "`RedisLockBackend` as the blocking row",
			"the starter's defaults",
			"uncontended: `withLockMono(LockRequest.of(key).withWaitTime(10 s), handle -> Mono.just(key), busy)"
					+ ".block()`; contended: `tryAcquire(LockRequest.of(key).withWaitTime(wait)).blockOptional()`, "
					+ "unlock `Mono.fromFuture(handle::releaseAsync).block()`");

	private final DefaultDistributeLock lock;

	private final ReactiveDistributeLock reactive;

	/** What the variant without {@code withLockMono} runs with, for the page. */
	public static final LibraryConfiguration ACQUIRE_ONLY = new LibraryConfiguration("distributelock",
			CONFIGURATION.client(), "the starter's defaults",
			"`tryAcquire(LockRequest.of(key).withWaitTime(10 s)).block()`, unlock "
					+ "`Mono.fromFuture(handle::releaseAsync).block()`: the contended loop's calls, uncontended");

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
			LockLibrary.super.lockAndUnlock(key);
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
	public void close() throws Exception {
		this.lock.close();
		this.resources.close();
	}

}
