package io.github.distributelock.aop;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup for a {@link io.github.distributelock.Lockable @Lockable} method
 * whose key or fields cannot work, or by a call of one declared to return {@code Object}
 * that returned work its lock cannot follow (a reactive type, a stage still running).
 *
 * @since 1.0.0
 */
public class InvalidLockableException extends IllegalStateException {

	private final Method method;

	private final String problem;

	private final String fix;

	InvalidLockableException(Method method, String problem, String fix, @Nullable Throwable cause) {
		super("@Lockable on " + describe(method) + ": " + problem + ". " + fix, cause);
		this.method = method;
		this.problem = problem;
		this.fix = fix;
	}

	InvalidLockableException(Method method, String problem, String fix) {
		this(method, problem, fix, null);
	}

	static String describe(Method method) {
		return method.getDeclaringClass().getName() + "." + method.getName();
	}

	/**
	 * The annotated method.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * What is wrong with the annotation.
	 * @return the problem
	 */
	public String getProblem() {
		return this.problem;
	}

	/**
	 * What to change.
	 * @return the fix
	 */
	public String getFix() {
		return this.fix;
	}

}
