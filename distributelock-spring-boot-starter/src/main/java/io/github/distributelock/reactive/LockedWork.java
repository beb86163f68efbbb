package io.github.distributelock.reactive;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.distributelock.LockHandle;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * The lock of one subscription and whether its work has started. The work is subscribed
 * on a parallel thread, and disposing the subscription does not stop a task that has
 * begun: the work's function then ran with a lock that the cancel had released already,
 * while another caller held it. So a cancel that comes first keeps the work from
 * starting, and one that comes while the work is being applied and subscribed (which then
 * cancels it at once) releases once that has returned.
 */
final class LockedWork {

	private static final int WAITING = 0;

	private static final int STARTED = 1;

	private static final int CANCELLED = 2;

	final LockHandle handle;

	private final AtomicInteger state = new AtomicInteger(WAITING);

	/** Completes once the work was applied and subscribed to, or failed to be. */
	private final CompletableFuture<@Nullable Void> applied = new CompletableFuture<>();

	LockedWork(LockHandle handle) {
		this.handle = handle;
	}

	/**
	 * Subscribes {@code subscriber} to the work, as {@code defer} would, unless the
	 * subscription was cancelled before the work started; then completes it empty.
	 */
	<T> void subscribe(Supplier<? extends Publisher<T>> work, Subscriber<? super T> subscriber) {
		if (!this.state.compareAndSet(WAITING, STARTED)) {
			Operators.complete(subscriber);
			return;
		}
		try {
			Publisher<T> started;
			try {
				// As defer: a null is the work's failure. Subscribed to, it threw on
				// the scheduler's thread, where no one heard of it: the subscriber
				// never ended, and the lock stayed held, renewed by the watchdog.
				started = Objects.requireNonNull(work.get(), "The work returned a null Publisher");
			}
			catch (Throwable ex) {
				// As defer: the work's failure is the subscriber's, a fatal error is
				// thrown.
				Exceptions.throwIfFatal(ex);
				Operators.error(subscriber, ex);
				return;
			}
			try {
				started.subscribe(subscriber);
			}
			catch (Throwable ex) {
				// Forbidden (Reactive Streams rule 1.9), but done: thrown on the
				// scheduler's thread, no one heard of it, the subscriber never
				// ended, and the lock stayed held. Told as Reactor's subscribe()
				// tells it, so the subscriber ends and the lock is released.
				Exceptions.throwIfFatal(ex);
				Operators.reportThrowInSubscribe(Operators.toCoreSubscriber(subscriber), ex);
			}
		}
		finally {
			this.applied.complete(null);
		}
	}

	/**
	 * Releases for a cancel: at once, or once the work was applied and subscribed to.
	 */
	Mono<Void> cancelled() {
		if (this.state.compareAndSet(WAITING, CANCELLED)) {
			return WorkReleases.release(this.handle);
		}
		return Mono.fromFuture(this.applied, true).then(WorkReleases.release(this.handle));
	}

}
