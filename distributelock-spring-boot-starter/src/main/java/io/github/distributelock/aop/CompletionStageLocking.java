package io.github.distributelock.aop;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockServiceShutdownException;
import io.github.distributelock.LockRequest;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.core.EventLoopThreads;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.interceptor.ExposeInvocationInterceptor;

/**
 * Holds the lock of a method that returns a {@link CompletionStage} from the call until
 * the stage completes, normally, exceptionally or by cancellation.
 * <p>
 * On a thread that may block, the caller waits for the lock, the method runs on that
 * thread (its thread-bound state, such as a security context, stays in place), and the
 * lock is released when the stage completes. The lock belongs to the stage, not to the
 * thread, which goes on to other work: a nested lock on the same key waits like any other
 * caller. On a thread of an event loop (Reactor's non-blocking threads, Netty's, the
 * threads of the store's client that deliver the lock's answers, such as ZooKeeper's
 * event thread or the JDBC backend's statement threads, and the lock service's scheduler,
 * whose timers end the waits), it is taken without blocking, and the method is called on
 * {@code executor} once it is held, never on the thread of the store's client that
 * granted it: downstream of a locked publisher the pipeline goes on on such a thread,
 * which a blocking wait there would keep from delivering the answer it waits for. A call
 * the executor accepts and then drops unrun releases its lock and fails the future
 * ({@link HeldCall}).
 */
final class CompletionStageLocking {

	private static final Log logger = LogFactory.getLog(CompletionStageLocking.class);

	private final Supplier<DistributeLock> lock;

	private final Executor executor;

	CompletionStageLocking(Supplier<DistributeLock> lock, Executor executor) {
		this.lock = lock;
		this.executor = HeldCall.checked(executor);
	}

	@Nullable Object invoke(MethodInvocation invocation, LockDefinition definition, LockRequest request) throws Throwable {
		if (onAnEventLoop()) {
			return invokeWithoutBlocking(invocation, definition, request);
		}
		// Owned by the stage, not by the thread: the thread goes on to other work while
		// the stage holds the lock, and must not re-enter it.
		CompletableFuture<Optional<LockHandle>> acquiring = this.lock.get().tryAcquireAsync(request);
		Optional<LockHandle> handle;
		try {
			handle = acquiring.get();
		}
		catch (InterruptedException ex) {
			acquiring.cancel(false);
			// The answer can arrive between the end of the wait and the cancel, which
			// then cancels nothing: a lock granted that late is released here, or it
			// would stay held, renewed by the watchdog, with no one to release it.
			acquiring.thenAccept((granted) -> granted
				.ifPresent((held) -> release(held, "granted after its caller was interrupted")));
			return definition.busyPolicy().interrupted(request.key(), ex);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof LockServiceShutdownException shutdown) {
				return definition.busyPolicy().shuttingDown(request.key(), shutdown);
			}
			throw ex.getCause();
		}
		if (handle.isEmpty()) {
			return definition.busyPolicy().busy(request.key());
		}
		LockHandle held = handle.get();
		Object result;
		try {
			result = invocation.proceed();
		}
		catch (Throwable ex) {
			// As try-with-resources: the method's own exception is the caller's, the
			// release's failure rides along with it.
			try {
				held.close();
			}
			catch (RuntimeException | Error releaseFailure) {
				ex.addSuppressed(releaseFailure);
			}
			throw ex;
		}
		if (result == null) {
			held.close();
			return null;
		}
		((CompletionStage<?>) result)
			.whenComplete((value, failure) -> release(held, "after the stage it guarded completed"));
		return result;
	}

	private boolean onAnEventLoop() {
		return EventLoopThreads.onAnEventLoop()
				|| (this.lock.get() instanceof DefaultDistributeLock lock && lock.completesCallsOnThisThread());
	}

	private CompletableFuture<@Nullable Object> invokeWithoutBlocking(MethodInvocation invocation,
			LockDefinition definition, LockRequest request) {
		CompletableFuture<@Nullable Object> result = new CompletableFuture<>();
		CompletableFuture<Optional<LockHandle>> acquiring = this.lock.get().tryAcquireAsync(request);
		result.whenComplete((value, failure) -> {
			if (!acquiring.isDone()) {
				// Completed by the caller (cancel, orTimeout) while waiting: gives up the
				// wait; a lock taken anyway is released.
				acquiring.cancel(false);
			}
		});
		acquiring.whenComplete((handle, failure) -> {
			Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
					? failure.getCause() : failure;
			if (cause instanceof LockServiceShutdownException shutdown && definition.skipsWhenBusy()) {
				definition.busyPolicy().shuttingDown(request.key(), shutdown);
				result.complete(null);
			}
			else if (failure != null) {
				result.completeExceptionally(failure);
			}
			else if (handle.isEmpty() && definition.skipsWhenBusy()) {
				definition.busyPolicy().busy(request.key());
				result.complete(null);
			}
			else if (handle.isEmpty()) {
				result.completeExceptionally(definition.failure(request.key()));
			}
			else {
				callHeld(invocation, handle.get(), result);
			}
		});
		return result;
	}

	private void callHeld(MethodInvocation invocation, LockHandle held, CompletableFuture<@Nullable Object> result) {
		// Before the call is handed over: a cancel while it waits in the executor's
		// queue releases at once, not once the executor gets to it. Every end of the
		// future (the method's, a refusal, a dropped call) releases here.
		result.whenComplete((value, failure) -> release(held, "after the stage it guarded completed"));
		HeldCall call = new HeldCall(invocation.getMethod(), held.key(), result, () -> invokeHeld(invocation, result));
		try {
			this.executor.execute(call);
		}
		catch (RuntimeException ex) {
			// Shut down, or its queue full (a RejectedExecutionException, or an
			// executor's own exception): the method does not run, and nothing else would
			// complete the caller's future, which gives back the lock.
			if (call.refused()) {
				result.completeExceptionally(ex);
			}
		}
	}

	private void invokeHeld(MethodInvocation invocation, CompletableFuture<@Nullable Object> result) {
		if (result.isDone()) {
			// Cancelled while it waited: the method does not run.
			return;
		}
		try {
			// The rest of the chain runs on this thread, not the caller's: it is resumed
			// with the invocation exposed here as it was there, or advice that reads it
			// (Spring's AspectJ advice) fails with "No MethodInvocation found".
			Object stage = ExposeInvocationInterceptor.INSTANCE.invoke(invocation);
			if (stage == null) {
				result.complete(null);
				return;
			}
			((CompletionStage<?>) stage).whenComplete((value, failure) -> {
				if (failure != null) {
					result.completeExceptionally(failure);
				}
				else {
					result.complete(value);
				}
			});
		}
		catch (Throwable ex) {
			result.completeExceptionally(ex);
		}
	}

	private static void release(LockHandle held, String when) {
		held.releaseAsync().whenComplete((released, failure) -> {
			if (failure != null) {
				logger.warn("Could not release lock '" + held.key() + "' " + when, failure);
			}
		});
	}

}
