package io.github.distributelock.aop;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;

import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.util.ClassUtils;

/**
 * How a {@link io.github.distributelock.Lockable @Lockable} method hands back its result,
 * which decides when its lock is taken and released: a plain value while the method runs;
 * a {@link CompletionStage} from the call until the stage completes; a reactive type
 * ({@code Mono}, {@code Flux}, any type {@link ReactiveAdapterRegistry} knows) per
 * subscription, until it completes, fails or is cancelled.
 *
 * @param kind the kind of result
 * @param adapter the adapter of a reactive result, else {@code null}
 */
record ReturnShape(Kind kind, @Nullable ReactiveAdapter adapter) {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			ReturnShape.class.getClassLoader());

	static final ReturnShape BLOCKING = new ReturnShape(Kind.BLOCKING, null);

	static final ReturnShape COMPLETION_STAGE = new ReturnShape(Kind.COMPLETION_STAGE, null);

	static final ReturnShape ANY_VALUE = new ReturnShape(Kind.ANY_VALUE, null);

	private static final String RUNS_ON = ", whose work goes on after the call, out of the lock";

	private static final String COLLECT_THE_STREAM = "Collect the stream inside the method and return what it "
			+ "collects to (a List), or lock by hand (DistributeLock.tryAcquire) around the code that consumes it";

	private static final String KOTLIN_FLOW = "kotlinx.coroutines.flow.Flow";

	private static final ClassValue<Boolean> KOTLIN_FLOWS = new ClassValue<>() {

		@Override
		protected Boolean computeValue(Class<?> type) {
			if (type.getName().equals(KOTLIN_FLOW)) {
				return true;
			}
			for (Class<?> implemented : ClassUtils.getAllInterfacesForClassAsSet(type)) {
				if (implemented.getName().equals(KOTLIN_FLOW)) {
					return true;
				}
			}
			return false;
		}

	};

	/**
	 * The shape of a method's result.
	 * @throws InvalidLockableException if the lock cannot follow the method's work
	 */
	static ReturnShape of(Method method) {
		Class<?> type = method.getReturnType();
		if (KotlinDetector.isSuspendingFunction(method)) {
			throw new InvalidLockableException(method, "it is a Kotlin suspend function, which is not supported",
					"Return a Mono or Flux from the method, or lock by hand with ReactiveDistributeLock or "
							+ "DistributeLock.tryAcquireAsync inside it");
		}
		if (CompletionStage.class.isAssignableFrom(type)) {
			if (!type.isAssignableFrom(CompletableFuture.class)) {
				throw new InvalidLockableException(method, "it returns " + type.getSimpleName()
						+ ", a CompletionStage of its own type, and a call that "
						+ "waits for the lock without blocking (on an event loop) or skips its work answers with "
						+ "a CompletableFuture, which is not one",
						"Declare the method to return CompletableFuture or CompletionStage");
			}
			return COMPLETION_STAGE;
		}
		if (Future.class.isAssignableFrom(type)) {
			throw new InvalidLockableException(method,
					"it returns a " + type.getSimpleName() + ", whose completion cannot be followed to release the "
							+ "lock",
					"Return a CompletableFuture or CompletionStage, or make the method return the value itself");
		}
		if (type == Object.class) {
			return ANY_VALUE;
		}
		if (BaseStream.class.isAssignableFrom(type)) {
			throw new InvalidLockableException(method,
					"it returns a " + type.getSimpleName()
							+ ", whose work runs as it is consumed: after the call, out of the lock",
					COLLECT_THE_STREAM);
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(type);
		if (adapter == null && isKotlinFlow(type)) {
			throw new InvalidLockableException(method,
					"it returns a Kotlin Flow, whose work runs as it is collected: after the call, out of the lock; "
							+ "and kotlinx-coroutines-reactor, which would let the lock follow it, is not on the "
							+ "class path",
					"Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor: the lock is then held for "
							+ "each collection of the flow");
		}
		if (adapter == null || !adapter.getDescriptor().isDeferred()) {
			return BLOCKING;
		}
		if (!REACTOR_PRESENT) {
			throw new InvalidLockableException(method,
					"it returns " + type.getName() + ", and Reactor is not on the class path",
					"Add io.projectreactor:reactor-core, which holds the lock for each subscription");
		}
		return new ReturnShape(Kind.PUBLISHER, adapter);
	}

	/**
	 * Refuses the result of a method declared to return {@code Object} whose work goes on
	 * after the call, out of the lock the call held: a reactive type, whose work runs at
	 * subscription, a stage or future still running, or a stage that is not a future,
	 * which cannot tell whether it is done. As Spring's transaction interceptor does, the
	 * shape follows the declared type, which is all that is known before the call;
	 * handing such a result back would leave its work unprotected without a word.
	 * @param method the annotated method
	 * @param result what it returned
	 * @throws InvalidLockableException if the work of the result is not done, or cannot
	 * be told done
	 */
	static void checkAnyValue(Method method, @Nullable Object result) {
		if (result == null) {
			return;
		}
		String declareTheType = "Declare the return type the method returns (Mono, Flux, CompletableFuture or "
				+ "another reactive type or CompletionStage): the lock is then held until that work ends";
		if (result instanceof CompletionStage<?> && !(result instanceof Future<?>)) {
			// Nothing in CompletionStage says whether it is done, so such a stage is
			// refused even when it is; declared as CompletionStage, its end is followed.
			throw refused(method, result, "a CompletionStage that is not a Future",
					", which cannot tell whether " + "its work is done: it may go on after the call, out of the lock",
					"Declare the method to return CompletionStage (a stage type of its own is refused at startup): "
							+ "the lock is then held until the stage completes");
		}
		if (result instanceof Future<?> future) {
			if (future.isDone()) {
				return;
			}
			if (!(result instanceof CompletionStage<?>)) {
				// Declared as a Future, it would be refused at startup: only a stage's
				// end can be followed.
				throw refused(method, result, "a Future that was still running", RUNS_ON,
						"Return a CompletableFuture, and declare the method to return CompletableFuture or "
								+ "CompletionStage: the lock is then held until it completes");
			}
			throw refused(method, result, "a stage that was still running", RUNS_ON, declareTheType);
		}
		if (result instanceof BaseStream<?, ?> stream) {
			InvalidLockableException refused = refused(method, result, "a stream",
					", whose work runs as it is consumed: after the call, out of the lock", COLLECT_THE_STREAM);
			// The caller never gets it to close: a stream of a file's lines or of a
			// query's cursor would keep its file or connection open.
			try {
				stream.close();
			}
			catch (RuntimeException ex) {
				refused.addSuppressed(ex);
			}
			throw refused;
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(result.getClass());
		if ((adapter != null && adapter.getDescriptor().isDeferred())
				|| (adapter == null && isKotlinFlow(result.getClass()))) {
			throw refused(method, result, "a reactive type", RUNS_ON, declareTheType);
		}
	}

	/**
	 * Whether {@code type} is, or implements, Kotlin's {@code Flow}, by name; asked of
	 * every result of a method declared {@code Object}, so learnt once per class.
	 */
	private static boolean isKotlinFlow(Class<?> type) {
		return KOTLIN_FLOWS.get(type);
	}

	private static InvalidLockableException refused(Method method, Object result, String returned, String why,
			String fix) {
		return new InvalidLockableException(method, "it is declared to return java.lang.Object but returned " + returned
				+ " (" + result.getClass().getName() + ")" + why + "; the result was discarded", fix);
	}

	enum Kind {

		/** The value itself: locked while the method runs. */
		BLOCKING,

		/**
		 * A value declared as {@code Object}: locked while the method runs, and a result
		 * whose work goes on after the call is refused ({@link #checkAnyValue}).
		 */
		ANY_VALUE,

		/** A stage whose work starts at the call: locked until it completes. */
		COMPLETION_STAGE,

		/**
		 * A publisher whose work starts at each subscription: locked per subscription.
		 */
		PUBLISHER

	}

}
