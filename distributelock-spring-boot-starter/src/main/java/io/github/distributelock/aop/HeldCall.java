package io.github.distributelock.aop;

import java.lang.ref.Cleaner;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The call of a method returning a {@code CompletionStage} whose lock is held, handed to
 * the interceptor's executor. An executor may accept a task and never run it:
 * {@code shutdownNow()} hands back its queued tasks unrun, a discard policy or an
 * executor of the application's own forgets one quietly. Nothing else would then release
 * the lock, which the watchdog renews until the lock service closes, or complete the
 * caller's future. So the call is watched by a {@link Cleaner}: once it is unreachable
 * without having run, it can never run, and the future is failed, which releases the lock
 * (the interceptor releases it whenever the future completes). That comes at the next
 * garbage collection, not at once, which is why an executor known to drop calls is
 * refused when the interceptor is created ({@link #checked}).
 */
final class HeldCall implements Runnable {

	private static final Log logger = LogFactory.getLog(LockableMethodInterceptor.class);

	/** One thread for every interceptor: a dropped call is rare, its clean-up short. */
	private static final Cleaner DROPPED = Cleaner.create();

	private final Runnable call;

	/** Whether the call ran, was refused or was found dropped: one of them acts. */
	private final AtomicBoolean settled = new AtomicBoolean();

	private final Cleaner.Cleanable cleanable;

	HeldCall(Method method, String key, CompletableFuture<?> result, Runnable call) {
		this.call = call;
		// Nothing of this object in the action, or it would never become unreachable.
		this.cleanable = DROPPED.register(this, new Dropped(this.settled, method, key, result));
	}

	@Override
	public void run() {
		if (this.settled.compareAndSet(false, true)) {
			this.cleanable.clean();
			this.call.run();
		}
	}

	/**
	 * Whether the executor's refusal is this call's to handle: it neither ran nor was
	 * found dropped.
	 * @return {@code true} once only, if the call never ran
	 */
	boolean refused() {
		boolean refused = this.settled.compareAndSet(false, true);
		this.cleanable.clean();
		return refused;
	}

	/**
	 * The executor, unless it is a pool whose rejection policy drops a call quietly, or
	 * runs it on the thread that hands it over: an event loop, or the store client's
	 * thread that granted the lock, which the executor is there to keep the method off.
	 * @param executor the interceptor's executor
	 * @return the executor
	 * @throws IllegalArgumentException if it drops calls, or runs them on the caller's
	 * thread, when its queue is full
	 */
	static Executor checked(Executor executor) {
		if (executor instanceof ThreadPoolExecutor pool) {
			RejectedExecutionHandler policy = pool.getRejectedExecutionHandler();
			String problem = null;
			if (policy instanceof ThreadPoolExecutor.DiscardPolicy
					|| policy instanceof ThreadPoolExecutor.DiscardOldestPolicy) {
				problem = "drops a call quietly when its queue is full: the method would not run and its future "
						+ "would not complete until the call was found dropped, its lock held meanwhile";
			}
			else if (policy instanceof ThreadPoolExecutor.CallerRunsPolicy) {
				problem = "runs a call on the thread that hands it over when its queue is full: an event loop, or "
						+ "the thread of the store's client that granted the lock, which a method that blocks (or "
						+ "waits for the same store) would stall";
			}
			if (problem != null) {
				throw new IllegalArgumentException("The executor of @Lockable methods returning a CompletionStage is "
						+ "a ThreadPoolExecutor with a " + policy.getClass().getSimpleName() + ", which " + problem
						+ ". Give it the AbortPolicy (the default): a refused call then fails its future at once and "
						+ "releases the lock.");
			}
		}
		return executor;
	}

	private record Dropped(AtomicBoolean settled, Method method, String key,
			CompletableFuture<?> result) implements Runnable {

		@Override
		public void run() {
			if (!this.settled.compareAndSet(false, true)) {
				return;
			}
			String problem = "The executor of @Lockable methods dropped the call of "
					+ InvalidLockableException.describe(this.method) + " under lock '" + this.key
					+ "' without running it (shut down by shutdownNow(), or a policy that discards calls)";
			logger.warn(problem + "; the caller's future is failed, which releases the lock");
			this.result.completeExceptionally(new RejectedExecutionException(problem
					+ ". Give the interceptor an executor that runs or refuses every call it accepts, and shut it "
					+ "down with shutdown(), which runs the calls it has queued."));
		}

	}

}
