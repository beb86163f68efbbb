package io.github.distributelock.aop;

import java.lang.reflect.Method;
import java.util.Map;

import io.github.distributelock.Lockable;
import org.aopalliance.aop.Advice;

import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ConcurrentReferenceHashMap;

/**
 * Applies the {@link LockableMethodInterceptor} to
 * {@link io.github.distributelock.Lockable @Lockable} methods. Every {@code @Lockable}
 * method of a class is checked the first time the class is matched, when its proxy is
 * created at startup, so an annotation that cannot work fails there, whichever kind of
 * proxy is created.
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
		this.pointcut = new LockablePointcut(resolver);
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

	/**
	 * Matches the {@code @Lockable} methods, after checking all of them in their class.
	 * Matching one method at a time would check only some: {@code AopUtils.canApply}
	 * stops at the first method that matches, and an interface (JDK) proxy, unlike a
	 * class proxy, looks up the advice of each other method at its first call.
	 */
	private static final class LockablePointcut extends StaticMethodMatcherPointcut {

		private final LockKeyResolver resolver;

		/**
		 * Whether each class checked has a {@code @Lockable} method: one scan a class,
		 * held softly, as Spring's own caches of classes are, so that a class loader of a
		 * restarted context (DevTools) is not kept.
		 */
		private final Map<Class<?>, Boolean> lockableClasses = new ConcurrentReferenceHashMap<>();

		LockablePointcut(LockKeyResolver resolver) {
			this.resolver = resolver;
			setClassFilter(this::hasLockableMethods);
		}

		@Override
		public boolean matches(Method method, Class<?> targetClass) {
			return this.resolver.definition(method, targetClass) != null;
		}

		/**
		 * Whether the class has a {@code @Lockable} method, of its own or of its
		 * interfaces, each of them checked.
		 * @throws InvalidLockableException if one of them cannot work
		 */
		private boolean hasLockableMethods(Class<?> targetClass) {
			if (!AnnotationUtils.isCandidateClass(targetClass, Lockable.class)) {
				return false;
			}
			return this.lockableClasses.computeIfAbsent(targetClass, this::scan);
		}

		private boolean scan(Class<?> targetClass) {
			MethodIntrospector.MetadataLookup<LockDefinition> definition = (method) -> this.resolver.definition(method,
					targetClass);
			return !MethodIntrospector.selectMethods(targetClass, definition).isEmpty();
		}

	}

}
