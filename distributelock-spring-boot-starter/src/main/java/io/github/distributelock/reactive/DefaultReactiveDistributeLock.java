package io.github.distributelock.reactive;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.ContextView;

/**
 * The {@link ReactiveDistributeLock} over the non-blocking API of a
 * {@link DistributeLock} ({@link DistributeLock#tryAcquireAsync}): no blocking call is
 * wrapped.
 *
 * @since 1.0.0
 */
public class DefaultReactiveDistributeLock implements ReactiveDistributeLock {

	private static final Log logger = LogFactory.getLog(DefaultReactiveDistributeLock.class);

	private final Supplier<DistributeLock> lock;

	/**
	 * Creates a reactive lock.
	 * @param lock the lock, looked up at the first subscription
	 */
	public DefaultReactiveDistributeLock(Supplier<DistributeLock> lock) {
		this.lock = lock;
	}

	@Override
	public Mono<LockHandle> tryAcquire(LockRequest request) {
		// Cancelling the subscription cancels the future: the engine gives up the wait
		// and gives back a lock its attempt in flight takes. A cancel that comes once the
		// future has completed cancels nothing, and the lock it carries is either passed
		// on or released here, whichever comes first, as nobody else would have it.
		return Mono.defer(() -> {
			CompletableFuture<Optional<LockHandle>> taking = this.lock.get().tryAcquireAsync(request);
			AtomicBoolean settled = new AtomicBoolean();
			return Mono.fromFuture(taking, false)
				.mapNotNull((taken) -> settled.compareAndSet(false, true) ? taken.orElse(null) : null)
				.doOnCancel(() -> taking.thenAccept((taken) -> taken.ifPresent((handle) -> {
					if (settled.compareAndSet(false, true)) {
						releaseAbandoned(handle);
					}
				})));
		});
	}

	@Override
	public <T> Flux<T> withLock(LockRequest request, Function<LockHandle, ? extends Publisher<T>> work,
			Supplier<? extends Throwable> busy) {
		return Flux.deferContextual((context) -> {
			HeldKeys held = HeldKeys.of(context);
			DistributeLock service = this.lock.get();
			LockHandle reentered = reentered(held, service, request);
			if (reentered != null) {
				return Flux.using(() -> reentered, work, LockHandle::close);
			}
			LockRequest wanted = notHeld(held, service, request);
			AtomicReference<@Nullable LockLostException> lostAtRelease = new AtomicReference<>();
			return Flux
				.usingWhen(acquired(wanted, busy).map(Work::new),
						(locked) -> Flux
							.<T>from((subscriber) -> locked.subscribe(() -> work.apply(locked.handle), subscriber))
							.subscribeOn(Schedulers.parallel())
							.contextWrite(HeldKeys.with(service, wanted, locked.handle)),
						(locked) -> releaseAfterWork(locked.handle, null, lostAtRelease),
						(locked, failure) -> releaseAfterWork(locked.handle, failure, lostAtRelease),
						(locked) -> locked.cancelled(this::release))
				.onErrorMap((failure) -> lossAtRelease(failure, lostAtRelease));
		});
	}

	@Override
	public <T> Mono<T> withLockMono(LockRequest request, Function<LockHandle, ? extends Mono<T>> work,
			Supplier<? extends Throwable> busy) {
		return Mono.deferContextual((context) -> {
			HeldKeys held = HeldKeys.of(context);
			DistributeLock service = this.lock.get();
			LockHandle reentered = reentered(held, service, request);
			if (reentered != null) {
				return Mono.using(() -> reentered, work, LockHandle::close);
			}
			LockRequest wanted = notHeld(held, service, request);
			AtomicReference<@Nullable LockLostException> lostAtRelease = new AtomicReference<>();
			return Mono
				.usingWhen(acquired(wanted, busy).map(Work::new), (locked) -> Mono
					.<T>fromDirect((subscriber) -> locked.subscribe(() -> work.apply(locked.handle), subscriber))
					.subscribeOn(Schedulers.parallel())
					.contextWrite(HeldKeys.with(service, wanted, locked.handle)),
						(locked) -> releaseAfterWork(locked.handle, null, lostAtRelease),
						(locked, failure) -> releaseAfterWork(locked.handle, failure, lostAtRelease),
						(locked) -> locked.cancelled(this::release))
				.onErrorMap((failure) -> lossAtRelease(failure, lostAtRelease));
		});
	}

	/**
	 * The hold of the pipeline that {@code request} re-enters: of its key, or of every
	 * key of a multi-key request; {@code null} when something is left to take, and for a
	 * request with an owner value, which is not reentrant. A hold is the lock service's
	 * ({@code service}), not this adapter's: {@code @Lockable} and the
	 * {@code ReactiveDistributeLock} bean are two adapters of one service, and a key one
	 * of them holds for the pipeline, the other asking for it would wait for itself.
	 */
	private static @Nullable LockHandle reentered(HeldKeys held, DistributeLock service, LockRequest request) {
		if (request.owner() != null) {
			// Owned by its value, not by the pipeline: the lock service re-enters no
			// request with an owner value for a thread either.
			return null;
		}
		if (service instanceof DefaultDistributeLock lock && held.holdsAnyReentrant(service, request)) {
			// Refused once close() has begun, as a thread's re-entry is: the hold it
			// would enter is being released. Before the kind is looked at, as for a
			// thread, whose re-entry a closing service does not consider.
			lock.refuseReentryOnceClosing(request.key());
		}
		LockHandle reentered;
		if (!request.isMultiKey()) {
			reentered = held.reentered(service, request);
		}
		else {
			reentered = held.notHeld(service, request).isEmpty() ? held.reentered(service, request.parts().get(0))
					: null;
		}
		return reentered;
	}

	/**
	 * What is left to take of {@code request}: the request itself, or the parts of a
	 * multi-key request that the pipeline does not hold yet, with the request's wait,
	 * owner, name, lease, minimum hold and busy policy; a held part would wait for
	 * itself. A request with an owner value takes every part: it re-enters nothing.
	 */
	private static LockRequest notHeld(HeldKeys held, DistributeLock service, LockRequest request) {
		if (!request.isMultiKey() || request.owner() != null) {
			return request;
		}
		List<LockRequest> missing = held.notHeld(service, request);
		if (missing.size() == request.parts().size()) {
			return request;
		}
		LockRequest rest = LockRequest.all(missing.toArray(LockRequest[]::new))
			.withWaitTime(request.waitTime())
			.withName(request.name())
			.withLeaseTime(request.leaseTime())
			.withMinimumHold(request.minimumHold())
			.withSkipWhenBusy(request.skipsWhenBusy());
		return (request.owner() != null) ? rest.withOwner(request.owner()) : rest;
	}

	/**
	 * The held lock, passed to {@code usingWhen} on the thread it came on, with nothing
	 * in between that could drop it: a {@code publishOn} here lost a lock granted just as
	 * the subscription was cancelled (its queue discards nothing for a {@code Mono}), and
	 * the lock stayed held, renewed, until the instance closed. The work is what moves to
	 * Reactor's parallel scheduler: the acquisition completes on a thread of the store's
	 * client (a Redis I/O thread, ZooKeeper's event thread), where work that waits for
	 * the same client would wait for itself.
	 */
	private Mono<LockHandle> acquired(LockRequest request, Supplier<? extends Throwable> busy) {
		return tryAcquire(request).switchIfEmpty(Mono.error(busy));
	}

	/**
	 * Releases a lock taken for a subscription that was cancelled before it got it,
	 * without blocking; a failure is the engine's to retry, and is logged with the key.
	 */
	private static void releaseAbandoned(LockHandle handle) {
		handle.releaseAsync().whenComplete((released, failure) -> {
			if (failure != null) {
				logger.warn("Could not release lock '" + handle.key()
						+ "', taken for a subscription cancelled before it got it", failure);
			}
		});
	}

	/**
	 * Releases without blocking once the work has ended. A loss found at the release
	 * ({@code distributelock.throw-on-lost}) is the subscriber's to hear, as a blocking
	 * {@code close()} throws it: it ends a work that completed with that error, and rides
	 * along with the work's own error, suppressed, so that it does not hide why the work
	 * failed. Any other failure is the engine's to retry, and is not the work's result.
	 */
	private Mono<Void> releaseAfterWork(LockHandle handle, @Nullable Throwable workFailure,
			AtomicReference<@Nullable LockLostException> lostAtRelease) {
		return Mono.fromFuture(handle::releaseAsync).onErrorResume((failure) -> {
			Throwable cause = Exceptions.unwrap(failure);
			if (cause instanceof CompletionException && cause.getCause() != null) {
				cause = cause.getCause();
			}
			if (!(cause instanceof LockLostException lost)) {
				logger.warn("Could not release lock '" + handle.key() + "' after the work under it ended", failure);
				return Mono.empty();
			}
			if (workFailure == null) {
				lostAtRelease.set(lost);
				return Mono.error(lost);
			}
			workFailure.addSuppressed(lost);
			return Mono.empty();
		});
	}

	/**
	 * The loss found at the release as the subscriber hears it: Reactor reports a cleanup
	 * that failed after the work completed in an exception of its own, around it.
	 */
	private static Throwable lossAtRelease(Throwable failure, AtomicReference<@Nullable LockLostException> lost) {
		LockLostException known = lost.get();
		return (known != null && failure != known && failure.getCause() == known) ? known : failure;
	}

	/**
	 * Releases without blocking; a failure is the engine's to retry, and is not the
	 * work's result.
	 */
	private Mono<Void> release(LockHandle handle) {
		return Mono.fromFuture(handle::releaseAsync).onErrorResume((failure) -> {
			logger.warn("Could not release lock '" + handle.key() + "' after the work under it ended", failure);
			return Mono.empty();
		});
	}

	/**
	 * Whether the work subscribed in {@code context} holds {@code key}.
	 * @param context the subscriber's context
	 * @param key the lock key
	 * @return whether the key is held by an enclosing {@code withLock}
	 */
	public static boolean holds(ContextView context, String key) {
		return HeldKeys.of(context).holds(key);
	}

	/**
	 * The lock of one subscription and whether its work has started. The work is
	 * subscribed on a parallel thread, and disposing the subscription does not stop a
	 * task that has begun: the work's function then ran with a lock that the cancel had
	 * released already, while another caller held it. So a cancel that comes first keeps
	 * the work from starting, and one that comes while the work is being applied and
	 * subscribed (which then cancels it at once) releases once that has returned.
	 */
	private static final class Work {

		private static final int WAITING = 0;

		private static final int STARTED = 1;

		private static final int CANCELLED = 2;

		final LockHandle handle;

		private final AtomicInteger state = new AtomicInteger(WAITING);

		/** Completes once the work was applied and subscribed to, or failed to be. */
		private final CompletableFuture<@Nullable Void> applied = new CompletableFuture<>();

		Work(LockHandle handle) {
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
		Mono<Void> cancelled(Function<LockHandle, Mono<Void>> release) {
			if (this.state.compareAndSet(WAITING, CANCELLED)) {
				return release.apply(this.handle);
			}
			return Mono.fromFuture(this.applied, true).then(release.apply(this.handle));
		}

	}

}
