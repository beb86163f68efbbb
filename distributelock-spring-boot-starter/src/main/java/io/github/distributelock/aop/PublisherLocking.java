package io.github.distributelock.aop;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockRequest;
import io.github.distributelock.LockServiceShutdownException;
import io.github.distributelock.reactive.DefaultReactiveDistributeLock;
import io.github.distributelock.reactive.ReactiveDistributeLock;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.ReactiveAdapter;

/**
 * Holds the lock of a method that returns a reactive type for each subscription of its
 * result, until that subscription completes, fails or is cancelled; loaded only where
 * Reactor is on the class path.
 * <p>
 * The method is called once, when it is called: the publisher it returns is the recipe of
 * the work, and every subscription of it runs under a lock of its own. Code the method
 * runs while it builds the publisher is not under the lock.
 */
final class PublisherLocking {

	/**
	 * Ends a skipped subscription empty: a busy lock of a skipping method is no error.
	 */
	private static final Throwable SKIPPED = new RuntimeException("skipped: the lock is busy", null, false, false) {
	};

	private final ReactiveDistributeLock lock;

	PublisherLocking(Supplier<DistributeLock> lock) {
		this.lock = new DefaultReactiveDistributeLock(lock);
	}

	@Nullable Object invoke(MethodInvocation invocation, LockDefinition definition, LockRequest request, ReactiveAdapter adapter)
			throws Throwable {
		Object source = invocation.proceed();
		if (source == null) {
			return null;
		}
		if (adapter.isMultiValue()) {
			Flux<?> work = Flux.from(adapter.toPublisher(source));
			if (!definition.skipsWhenBusy()) {
				return adapter.fromPublisher(this.lock.withLock(request, (handle) -> work, busy(definition, request)));
			}
			return adapter.fromPublisher(Flux.defer(() -> {
				AtomicBoolean started = new AtomicBoolean();
				return this.lock.withLock(request, (handle) -> startedWork(started, work), () -> SKIPPED)
					.onErrorResume((failure) -> skipped(definition, request, started, failure),
							(skipped) -> Flux.empty());
			}));
		}
		Mono<?> work = Mono.from(adapter.toPublisher(source));
		if (!definition.skipsWhenBusy()) {
			return adapter.fromPublisher(this.lock.withLockMono(request, (handle) -> work, busy(definition, request)));
		}
		return adapter.fromPublisher(Mono.defer(() -> {
			AtomicBoolean started = new AtomicBoolean();
			return this.lock.withLockMono(request, (handle) -> startedWork(started, work), () -> SKIPPED)
				.onErrorResume((failure) -> skipped(definition, request, started, failure), (skipped) -> Mono.empty());
		}));
	}

	private static Supplier<Throwable> busy(LockDefinition definition, LockRequest request) {
		return () -> definition.failure(request.key());
	}

	/**
	 * The work, noting that it has started: from then on, a failure is the work's own,
	 * not the method's busy or shutdown answer (a skip).
	 */
	private static <P> P startedWork(AtomicBoolean started, P work) {
		started.set(true);
		return work;
	}

	/**
	 * Whether the call is skipped, as a blocking one would be: its lock was busy, or the
	 * lock service shut down while it was asked for; called for methods that skip when
	 * busy only. Once the work has {@code started}, its failures are its own, even a
	 * shutdown of a lock it takes inside: ending them empty would report failed work as
	 * skipped.
	 */
	private static boolean skipped(LockDefinition definition, LockRequest request, AtomicBoolean started,
			Throwable failure) {
		if (started.get()) {
			return false;
		}
		if (failure == SKIPPED) {
			definition.busyPolicy().busy(request.key());
			return true;
		}
		if (failure instanceof LockServiceShutdownException shutdown) {
			definition.busyPolicy().shuttingDown(request.key(), shutdown);
			return true;
		}
		return false;
	}

}
