package io.github.distributelock.reactive;

import java.util.function.Function;
import java.util.function.Supplier;

import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The distributed lock for Reactor: waits without parking a thread (on JDBC the
 * statements run on a small pool of the backend's), and holds a lock for the duration of
 * a publisher's work.
 * <p>
 * Each subscription locks on its own: a cold publisher subscribed twice takes the lock
 * twice, one after the other. A lock is released when the work completes, fails or is
 * cancelled. Within the work, a nested {@code withLock} on the same key enters at once:
 * the keys held are carried in the Reactor {@code Context}, as the blocking API carries
 * them per thread. The work is subscribed to on Reactor's parallel scheduler, never on a
 * thread of the store's client.
 *
 * @since 1.0.0
 */
public interface ReactiveDistributeLock {

	/**
	 * Tries to take the lock when subscribed to, waiting up to the request's wait time
	 * without parking a thread. Cancelling the subscription gives up the wait, and a lock
	 * taken anyway is released.
	 * @param request what to lock, how long to wait, which lease
	 * @return emits the handle, or completes empty if the lock was not taken within the
	 * wait time; fails with {@link io.github.distributelock.DistributeLockException} if
	 * the store failed
	 */
	Mono<LockHandle> tryAcquire(LockRequest request);

	/**
	 * Runs {@code work} under the lock: the lock is taken when the result is subscribed
	 * to, and released when the work completes, fails or is cancelled. A subscription
	 * cancelled before the work has started never starts it; one cancelled while
	 * {@code work} is being applied and subscribed to releases once that has returned.
	 * @param <T> the type of the elements
	 * @param request what to lock, how long to wait, which lease
	 * @param work the work, given the handle of the held lock
	 * @param busy the failure to emit when the lock was not taken within the wait time
	 * @return the work's elements
	 */
	<T> Flux<T> withLock(LockRequest request, Function<LockHandle, ? extends Publisher<T>> work,
			Supplier<? extends Throwable> busy);

	/**
	 * Runs {@code work} under the lock, like
	 * {@link #withLock(LockRequest, Function, Supplier)}, for a single value.
	 * @param <T> the type of the value
	 * @param request what to lock, how long to wait, which lease
	 * @param work the work, given the handle of the held lock
	 * @param busy the failure to emit when the lock was not taken within the wait time
	 * @return the work's value
	 */
	<T> Mono<T> withLockMono(LockRequest request, Function<LockHandle, ? extends Mono<T>> work,
			Supplier<? extends Throwable> busy);

}
