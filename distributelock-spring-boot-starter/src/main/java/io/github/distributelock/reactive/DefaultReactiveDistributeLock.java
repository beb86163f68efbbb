package io.github.distributelock.reactive;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockLostException;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
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
						WorkReleases.releaseAbandoned(handle);
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
				.usingWhen(acquired(wanted, busy).map(LockedWork::new),
						(locked) -> Flux
							.<T>from((subscriber) -> locked.subscribe(() -> work.apply(locked.handle), subscriber))
							.subscribeOn(Schedulers.parallel())
							.contextWrite(HeldKeys.with(service, wanted, locked.handle)),
						(locked) -> WorkReleases.releaseAfterWork(locked.handle, null, lostAtRelease),
						(locked, failure) -> WorkReleases.releaseAfterWork(locked.handle, failure, lostAtRelease),
						(locked) -> locked.cancelled())
				.onErrorMap((failure) -> WorkReleases.lossAtRelease(failure, lostAtRelease));
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
				.usingWhen(acquired(wanted, busy).map(LockedWork::new), (locked) -> Mono
					.<T>fromDirect((subscriber) -> locked.subscribe(() -> work.apply(locked.handle), subscriber))
					.subscribeOn(Schedulers.parallel())
					.contextWrite(HeldKeys.with(service, wanted, locked.handle)),
						(locked) -> WorkReleases.releaseAfterWork(locked.handle, null, lostAtRelease),
						(locked, failure) -> WorkReleases.releaseAfterWork(locked.handle, failure, lostAtRelease),
						(locked) -> locked.cancelled())
				.onErrorMap((failure) -> WorkReleases.lossAtRelease(failure, lostAtRelease));
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
	 * Whether the work subscribed in {@code context} holds {@code key}.
	 * @param context the subscriber's context
	 * @param key the lock key
	 * @return whether the key is held by an enclosing {@code withLock}
	 */
	public static boolean holds(ContextView context, String key) {
		return HeldKeys.of(context).holds(key);
	}

}
