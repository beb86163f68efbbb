package io.github.distributelock.aop;

import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockServiceShutdownException;
import io.github.distributelock.LockRequest;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.ClassUtils;

/**
 * Runs a {@link io.github.distributelock.Lockable @Lockable} method under its lock: for
 * the method's run, until the {@code CompletionStage} it returns completes, or for each
 * subscription of the reactive type it returns. When the lock is not taken in time it
 * throws {@link LockFailedException}, or skips the call (a {@code @Scheduled} method, or
 * {@code onBusy = SKIP}).
 *
 * @since 1.0.0
 */
public class LockableMethodInterceptor implements MethodInterceptor {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			LockableMethodInterceptor.class.getClassLoader());

	private final LockKeyResolver resolver;

	private final Supplier<DistributeLock> lock;

	private final CompletionStageLocking completionStages;

	private final @Nullable PublisherLocking publishers;

	/**
	 * Creates an interceptor that calls methods returning a {@code CompletionStage} from
	 * an event loop on the common fork-join pool once their lock is held.
	 * @param resolver finds and compiles the annotation of each method
	 * @param lock the lock, looked up at the first call so the interceptor can be created
	 * before the store's beans
	 */
	public LockableMethodInterceptor(LockKeyResolver resolver, Supplier<DistributeLock> lock) {
		this(resolver, lock, ForkJoinPool.commonPool());
	}

	/**
	 * Creates an interceptor.
	 * @param resolver finds and compiles the annotation of each method
	 * @param lock the lock, looked up at the first call so the interceptor can be created
	 * before the store's beans
	 * @param executor calls a method that returns a {@code CompletionStage}, once its
	 * lock is held, when it was called on an event loop (which must not wait for the
	 * lock); if it refuses the call ({@code RejectedExecutionException}), the method does
	 * not run, its future fails with that exception and the lock is released; a call it
	 * accepts and then drops unrun ({@code shutdownNow()}) is found when it becomes
	 * unreachable, at a garbage collection, and then does the same
	 * @throws IllegalArgumentException if the executor is a {@code ThreadPoolExecutor}
	 * whose rejection policy drops calls quietly ({@code DiscardPolicy},
	 * {@code DiscardOldestPolicy}) or runs them on the event loop that hands them over
	 * ({@code CallerRunsPolicy})
	 */
	public LockableMethodInterceptor(LockKeyResolver resolver, Supplier<DistributeLock> lock, Executor executor) {
		this.resolver = resolver;
		this.lock = lock;
		this.completionStages = new CompletionStageLocking(lock, executor);
		this.publishers = REACTOR_PRESENT ? new PublisherLocking(lock) : null;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockDefinition definition = this.resolver.definition(invocation.getMethod(), targetClass);
		if (definition == null) {
			return invocation.proceed();
		}
		LockRequest request = definition.request(invocation.getArguments());
		String lockKey = request.key();
		ReturnShape shape = definition.returnShape();
		if (shape.kind() == ReturnShape.Kind.COMPLETION_STAGE) {
			return this.completionStages.invoke(invocation, definition, request);
		}
		if (shape.kind() == ReturnShape.Kind.PUBLISHER && this.publishers != null && shape.adapter() != null) {
			return this.publishers.invoke(invocation, definition, request, shape.adapter());
		}
		Optional<LockHandle> handle;
		try {
			handle = this.lock.get().tryAcquire(request);
		}
		catch (InterruptedException ex) {
			return definition.busyPolicy().interrupted(lockKey, ex);
		}
		catch (LockServiceShutdownException ex) {
			return definition.busyPolicy().shuttingDown(lockKey, ex);
		}
		if (handle.isEmpty()) {
			return definition.busyPolicy().busy(lockKey);
		}
		try (LockHandle held = handle.get()) {
			Object result = invocation.proceed();
			if (shape.kind() == ReturnShape.Kind.ANY_VALUE) {
				ReturnShape.checkAnyValue(invocation.getMethod(), result);
			}
			return result;
		}
	}

}
