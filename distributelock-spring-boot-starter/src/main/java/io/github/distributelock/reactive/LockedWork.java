package io.github.distributelock.reactive;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.distributelock.LockHandle;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * The lock of one subscription and whether its work has started. The work is subscribed
 * on a parallel thread, and disposing the subscription does not stop a task that has
 * begun: the work's function then ran with a lock that the cancel had released already,
 * while another caller held it. So a cancel that comes first keeps the work from
 * starting, and one that comes while the work is being applied and subscribed (which then
 * cancels it at once) releases once that has returned.
 */
final class LockedWork {

	/** The category of the adapter's lines (docs/observability.md). */
	private static final Log logger = LogFactory.getLog(DefaultReactiveDistributeLock.class);

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
				// thrown on; but told first, as a fatal error thrown alone (a
				// LinkageError, a StackOverflowError) reached no one, the subscriber
				// never ended, and the lock stayed held, renewed by the watchdog.
				Operators.error(subscriber, ex);
				Exceptions.throwIfFatal(ex);
				return;
			}
			// Serialized: a work that throws may still be sending from a thread of its
			// own, and its thrown error, told on this thread, reached the subscriber
			// during an onNext, which then ran on after the lock had been released.
			Guarded<T> guarded = new Guarded<>(Operators.serialize(Operators.toCoreSubscriber(subscriber)),
					this.handle.key());
			try {
				started.subscribe(guarded);
			}
			catch (Throwable ex) {
				// Forbidden (Reactive Streams rule 1.9), but done, and how Reactor's
				// operators throw a fatal error the work met: thrown on the
				// scheduler's thread, no one heard of it, the subscriber never
				// ended, and the lock stayed held. Told, then a fatal one thrown on.
				guarded.thrown(ex);
				Exceptions.throwIfFatal(ex);
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

	/**
	 * The subscriber a work's publisher is given, which keeps the signals of a publisher
	 * that throws from {@code subscribe()} within the rules: the subscriber hears one
	 * terminal signal and nothing after it. Such a publisher may have called
	 * {@code onSubscribe} first, and may even have ended: the thrown error was then told
	 * after the work's own end (an {@code onError} after its {@code onComplete}), and the
	 * work, its subscription never cancelled, could go on sending after the lock was
	 * released. Reactor's own {@code subscribe()} reports such a throw as a second
	 * {@code onSubscribe} followed by {@code onError}, which is told apart the same way.
	 * The subscriber it is given is serialized, so that an error thrown while the work
	 * sends an element from another thread is told once that element's {@code onNext} has
	 * returned.
	 */
	private static final class Guarded<T> implements CoreSubscriber<T> {

		private final CoreSubscriber<? super T> actual;

		private final String key;

		/** The work's subscription, the first one it gave. */
		private final AtomicReference<@Nullable Subscription> upstream = new AtomicReference<>();

		/** Whether the work broke the rules: threw, or gave a second subscription. */
		private volatile boolean broken;

		private final AtomicBoolean done = new AtomicBoolean();

		Guarded(CoreSubscriber<? super T> actual, String key) {
			this.actual = actual;
			this.key = key;
		}

		@Override
		public Context currentContext() {
			return this.actual.currentContext();
		}

		@Override
		public void onSubscribe(Subscription subscription) {
			if (this.upstream.compareAndSet(null, subscription)) {
				this.actual.onSubscribe(subscription);
				return;
			}
			this.broken = true;
			subscription.cancel();
			Operators.reportSubscriptionSet();
		}

		@Override
		public void onNext(T value) {
			if (this.done.get()) {
				Operators.onNextDropped(value, currentContext());
				return;
			}
			this.actual.onNext(value);
		}

		@Override
		public void onError(Throwable failure) {
			if (!this.done.compareAndSet(false, true)) {
				logger.warn("The work under lock '" + this.key + "' failed after it had ended; the error is dropped",
						failure);
				return;
			}
			if (this.broken) {
				// The error of a throw: the work itself may still be running.
				Subscription subscription = this.upstream.get();
				if (subscription != null) {
					subscription.cancel();
				}
			}
			this.actual.onError(failure);
		}

		@Override
		public void onComplete() {
			if (this.done.compareAndSet(false, true)) {
				this.actual.onComplete();
			}
		}

		/** Tells the subscriber of an error the work's publisher threw. */
		void thrown(Throwable failure) {
			this.broken = true;
			if (this.upstream.compareAndSet(null, Operators.emptySubscription())) {
				this.actual.onSubscribe(Operators.emptySubscription());
			}
			onError(failure);
		}

	}

}
