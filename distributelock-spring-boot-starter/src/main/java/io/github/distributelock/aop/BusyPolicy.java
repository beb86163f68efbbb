package io.github.distributelock.aop;

import java.lang.reflect.Method;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.function.Supplier;

import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockServiceShutdownException;
import io.github.distributelock.Lockable;
import io.github.distributelock.Lockable.OnBusy;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;

/**
 * What a {@link Lockable @Lockable} method does when its lock is busy, decided once per
 * method at startup: throw {@link LockFailedException}, or skip the call and return the
 * empty value of its return type. A method that Spring's scheduler calls skips by
 * default, since an exception would only reach the scheduler's error handler, which logs
 * it as an error at every tick another instance runs.
 */
final class BusyPolicy {

	private static final Log logger = LogFactory.getLog(LockableMethodInterceptor.class);

	private final Method method;

	private final String failMessage;

	private final @Nullable Supplier<@Nullable Object> skipped;

	private BusyPolicy(Method method, String failMessage, @Nullable Supplier<@Nullable Object> skipped) {
		this.method = method;
		this.failMessage = failMessage;
		this.skipped = skipped;
	}

	/**
	 * The policy of a method.
	 * @param method the annotated method
	 * @param onBusy the annotation's choice
	 * @param failMessage the {@code "message|code"} of the failure
	 * @return the policy
	 * @throws InvalidLockableException if the method should skip but returns a primitive
	 */
	static BusyPolicy of(Method method, OnBusy onBusy, String failMessage) {
		boolean scheduled = isScheduled(method);
		boolean skip = (onBusy == OnBusy.SKIP) || (onBusy == OnBusy.DEFAULT && scheduled);
		if (!skip) {
			return new BusyPolicy(method, failMessage, null);
		}
		Class<?> returnType = method.getReturnType();
		if (returnType.isPrimitive() && returnType != void.class) {
			String why = (onBusy == OnBusy.SKIP) ? "onBusy is SKIP" : "it is @Scheduled, so it skips when busy";
			throw new InvalidLockableException(method,
					why + ", but it returns " + returnType.getName() + ", which a skipped call has no value for",
					"Return void, a wrapper such as " + wrapperName(returnType) + " (null when skipped) or an "
							+ "Optional (empty when skipped), or set onBusy = Lockable.OnBusy.FAIL to throw "
							+ "LockFailedException instead");
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
		if (adapter != null && !adapter.isNoValue() && !adapter.getDescriptor().supportsEmpty()) {
			// A skipped subscription ends empty, which such a type turns into an error
			// (RxJava's Single: NoSuchElementException) at every busy call.
			String why = (onBusy == OnBusy.SKIP) ? "onBusy is SKIP" : "it is @Scheduled, so it skips when busy";
			throw new InvalidLockableException(method,
					why + ", but it returns " + returnType.getName() + ", which must emit a value and cannot end "
							+ "empty when skipped",
					"Return a type that may be empty (a Maybe, Mono or Flux, which completes empty when skipped), or "
							+ "set onBusy = Lockable.OnBusy.FAIL to fail with LockFailedException instead");
		}
		return new BusyPolicy(method, failMessage, skippedValue(returnType));
	}

	/**
	 * Whether Spring's scheduler calls the method: {@code @Scheduled} on it, also
	 * repeated or as a meta-annotation, found as
	 * {@code ScheduledAnnotationBeanPostProcessor} finds it. Not on an interface or
	 * superclass method it overrides, which Spring does not schedule: a call of such a
	 * method from anywhere else would be skipped quietly.
	 */
	static boolean isScheduled(Method method) {
		return !AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class, Schedules.class)
			.isEmpty();
	}

	/**
	 * What a skipped call returns: the empty value of the types that have one, so callers
	 * need no null check, otherwise {@code null}.
	 */
	private static Supplier<@Nullable Object> skippedValue(Class<?> returnType) {
		if (returnType == Optional.class) {
			return Optional::empty;
		}
		if (returnType == OptionalInt.class) {
			return OptionalInt::empty;
		}
		if (returnType == OptionalLong.class) {
			return OptionalLong::empty;
		}
		if (returnType == OptionalDouble.class) {
			return OptionalDouble::empty;
		}
		if (returnType == CompletableFuture.class || returnType == CompletionStage.class
				|| returnType == Future.class) {
			return () -> CompletableFuture.completedFuture(null);
		}
		return () -> null;
	}

	private static String wrapperName(Class<?> primitive) {
		return switch (primitive.getName()) {
			case "int" -> "Integer";
			case "char" -> "Character";
			default -> Character.toUpperCase(primitive.getName().charAt(0)) + primitive.getName().substring(1);
		};
	}

	/**
	 * Whether a busy lock skips the call rather than failing it.
	 * @return whether the call is skipped
	 */
	boolean skips() {
		return this.skipped != null;
	}

	/**
	 * The failure of a call whose lock was not taken, with the annotation's message and
	 * code.
	 * @param lockKey the key that was not taken
	 * @return the failure
	 */
	LockFailedException failure(String lockKey) {
		return LockFailedException.of(this.failMessage, lockKey);
	}

	/**
	 * What a call whose lock is busy returns.
	 * @param lockKey the key that was busy
	 * @return the empty value of the return type
	 * @throws LockFailedException if the call fails rather than skips
	 */
	@Nullable Object busy(String lockKey) {
		if (this.skipped == null) {
			throw failure(lockKey);
		}
		return this.skipped.get();
	}

	/**
	 * What a call whose lock service shuts down returns: a skipping call (a scheduled
	 * tick as the application stops) ends quietly, others fail with the shutdown.
	 * @param lockKey the key it asked for
	 * @param shutdown the shutdown that ended the acquisition
	 * @return the empty value of the return type, for a call that skips
	 * @throws LockServiceShutdownException if the call fails rather than skips
	 */
	@Nullable Object shuttingDown(String lockKey, LockServiceShutdownException shutdown) {
		if (this.skipped == null) {
			throw shutdown;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Skipped " + InvalidLockableException.describe(this.method)
					+ ": the lock service is shutting down, so lock '" + lockKey + "' was not taken");
		}
		return this.skipped.get();
	}

	/**
	 * What a call interrupted while it waited for its lock returns; the interrupt flag is
	 * set again either way.
	 * @param lockKey the key it waited for
	 * @param interrupt the interrupt
	 * @return the empty value of the return type, for a call that skips
	 * @throws LockFailedException if the call fails rather than skips
	 */
	@Nullable Object interrupted(String lockKey, InterruptedException interrupt) {
		Thread.currentThread().interrupt();
		if (this.skipped == null) {
			LockFailedException failure = failure(lockKey);
			failure.initCause(interrupt);
			throw failure;
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Skipped " + InvalidLockableException.describe(this.method)
					+ ": interrupted while acquiring lock '" + lockKey + "'");
		}
		return this.skipped.get();
	}

}
