package io.github.distributelock.aop;

import java.lang.reflect.Method;

import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Applies the {@link LockableMethodInterceptor} to
 * {@link io.github.distributelock.Lockable @Lockable} methods. Matching happens when
 * proxies are created, at startup, so an annotation that cannot work fails there.
 *
 * @since 1.0.0
 */
public class LockableAdvisor extends AbstractPointcutAdvisor {

	private final transient LockableMethodInterceptor interceptor;

	private final transient Pointcut pointcut;

	/**
	 * Creates an advisor.
	 * @param resolver finds and checks the annotation of each method
	 * @param interceptor the interceptor to apply
	 * @param order the order of the advisor; it must run before (outside) the transaction
	 * advisor
	 */
	public LockableAdvisor(LockKeyResolver resolver, LockableMethodInterceptor interceptor, int order) {
		this.interceptor = interceptor;
		this.pointcut = new StaticMethodMatcherPointcut() {

			@Override
			public boolean matches(Method method, Class<?> targetClass) {
				return resolver.definition(method, targetClass) != null;
			}

		};
		setOrder(order);
	}

	@Override
	public Pointcut getPointcut() {
		return this.pointcut;
	}

	@Override
	public Advice getAdvice() {
		return this.interceptor;
	}

}
