package io.github.distributelock.aop;

import java.util.Optional;
import java.util.function.Supplier;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;

/**
 * Runs a {@link io.github.distributelock.Lockable @Lockable} method under its lock. When
 * the lock is not taken in time it throws {@link LockFailedException}, or skips the call
 * (a {@code @Scheduled} method, or {@code onBusy = SKIP}).
 *
 * @since 1.0.0
 */
public class LockableMethodInterceptor implements MethodInterceptor {

	private final LockKeyResolver resolver;

	private final Supplier<DistributeLock> lock;

	/**
	 * Creates an interceptor.
	 * @param resolver finds and compiles the annotation of each method
	 * @param lock the lock, looked up at the first call so the interceptor can be created
	 * before the store's beans
	 */
	public LockableMethodInterceptor(LockKeyResolver resolver, Supplier<DistributeLock> lock) {
		this.resolver = resolver;
		this.lock = lock;
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : null;
		LockDefinition definition = this.resolver.definition(invocation.getMethod(), targetClass);
		if (definition == null) {
			return invocation.proceed();
		}
		String lockKey = definition.lockKey(invocation.getArguments());
		Optional<LockHandle> handle;
		try {
			handle = this.lock.get().tryAcquire(definition.request(lockKey));
		}
		catch (InterruptedException ex) {
			return definition.busyPolicy().interrupted(lockKey, ex);
		}
		if (handle.isEmpty()) {
			return definition.busyPolicy().busy(lockKey);
		}
		try (LockHandle held = handle.get()) {
			return invocation.proceed();
		}
	}

}
