package io.github.distributelock.core;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * The thread of a caller of the blocking API, lent to the engine while it waits: the
 * engine's continuations for that call, and a blocking store's statements, run here
 * instead of on a thread of their own, so the blocking API costs no thread hop per store
 * round trip and the non-blocking one shares its code.
 * <p>
 * If the caller stops waiting (an interrupt, the shutdown), later tasks run on
 * {@code fallback}, or where they are handed in once it refuses them, so that an
 * acquisition given up half-way still gives back what it took.
 * <p>
 * The caller parks and is unparked by whoever hands it a task or completes its result: a
 * {@code LinkedBlockingQueue} cost two locks and two conditions per call, and the store
 * client's thread and the caller contended for its lock, which took 12% of a caller's CPU
 * time on Redis and PostgreSQL and put the blocking path 4% behind the first engine's.
 * <p>
 * One is made per blocking call, which most often gets one task at a time: that task
 * waits in a field of its own, and a queue is made only for a task handed in while
 * another waits there (see {@link #queue(Runnable)}), as are the ends of waits: the two
 * queues made per call were 224 of the 2,880 bytes that an uncontended acquisition and
 * release allocated on an in-memory store.
 */
final class CallerRuns implements Executor {

	/** {@code Thread.isVirtual()}, where the JDK has it (Java 21 and later). */
	private static final @Nullable MethodHandle IS_VIRTUAL = isVirtualMethod();

	private static final VarHandle FIRST;

	private static final VarHandle MORE;

	private static final VarHandle DUE_ENDS;

	static {
		try {
			MethodHandles.Lookup lookup = MethodHandles.lookup();
			FIRST = lookup.findVarHandle(CallerRuns.class, "first", Runnable.class);
			MORE = lookup.findVarHandle(CallerRuns.class, "more", ConcurrentLinkedQueue.class);
			DUE_ENDS = lookup.findVarHandle(CallerRuns.class, "dueEnds", ConcurrentLinkedQueue.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	/** A task waiting to run, ahead of those in {@link #more}. */
	private volatile @Nullable Runnable first;

	/**
	 * The tasks handed in while {@link #first} held one: {@code null} until then, set
	 * once and never unset.
	 */
	private volatile @Nullable ConcurrentLinkedQueue<Runnable> more;

	private final Executor fallback;

	/** The thread that waits for the result and runs the tasks, once it waits. */
	private volatile @Nullable Thread caller;

	private volatile boolean abandoned;

	/**
	 * Whether this thread only ends the waits of its release ({@link #forRelease()}): set
	 * before the executor is handed on, and seen through the stages that hand it on.
	 */
	private boolean endsWaitsOnly;

	/**
	 * The ends of this call's waits in progress, which the caller runs itself once each
	 * is due. Several at once: the release of a multi-key handle waits for the stuck
	 * renewal of each of its keys, and keeping only the last end set left the others to
	 * the scheduler's timers. {@code null} until the first, set once and never unset.
	 */
	private volatile @Nullable ConcurrentLinkedQueue<DueEnd> dueEnds;

	CallerRuns(Executor fallback) {
		this.fallback = fallback;
	}

	/**
	 * Where a continuation of a caller's call runs: on {@code callerExecutor}, the
	 * caller's thread while it waits, or where its stage completed when there is none or
	 * it refuses. A caller that stopped waiting hands its tasks to the engine's
	 * scheduler, which refuses them once the lock is closed, and a continuation that ends
	 * a release (the key's local hold, a multi-key batch's answers) must still run.
	 * @param callerExecutor a caller's {@code CallerRuns}, or {@code null}
	 * @return the executor for the continuation
	 */
	static Executor continuation(@Nullable Executor callerExecutor) {
		if (forStatements(callerExecutor) == null) {
			return Runnable::run;
		}
		return (task) -> {
			try {
				callerExecutor.execute(task);
			}
			catch (RejectedExecutionException ex) {
				task.run();
			}
		};
	}

	/**
	 * This caller's thread, lent to a release of its own: a blocking store may run the
	 * release on it, unless it is a virtual thread, where an interrupt during a blocking
	 * socket call closes the socket and would fail a release that must complete. A
	 * virtual thread still ends the release's waits ({@link #alsoEndAt}), or a busy
	 * scheduler would keep it waiting; the release's statements and continuations run
	 * elsewhere ({@link #forStatements}, {@link #continuation}).
	 */
	Executor forRelease() {
		if (isVirtual(Thread.currentThread())) {
			this.endsWaitsOnly = true;
		}
		return this;
	}

	/**
	 * Where a blocking store runs the statements of a release for a caller:
	 * {@code callerExecutor} itself, unless it is the {@link #forRelease()} of a virtual
	 * thread.
	 * @param callerExecutor the caller's executor for the release, or {@code null}
	 * @return the executor for the store's claim, or {@code null} for the store's own
	 */
	static @Nullable Executor forStatements(@Nullable Executor callerExecutor) {
		return (callerExecutor instanceof CallerRuns callerRuns && callerRuns.endsWaitsOnly) ? null : callerExecutor;
	}

	/**
	 * {@code claim} as the store gets it: without the executor of a caller that no longer
	 * waits (an interrupt, its deadline, its call returned), so that a blocking store
	 * runs the statement on its own threads. That executor hands its tasks to the lock
	 * service's scheduler, whose two threads also run the watchdog: a statement waiting
	 * there for a pooled connection, a row lock or a slow database held back the renewals
	 * of every other lock, which could then be lost (the queue exit of a fair waiter
	 * interrupted or ended at its deadline, the give-back of its attempt).
	 * @param claim a claim about to reach the store
	 * @return the claim, or the same claim with no caller's executor
	 */
	static LockBackend.Claim forStore(LockBackend.Claim claim) {
		return (claim.callerExecutor() instanceof CallerRuns callerRuns && callerRuns.abandoned) ? claim.on(null)
				: claim;
	}

	/**
	 * {@code claims} as the store gets them: see {@link #forStore(LockBackend.Claim)}.
	 * @param claims claims about to reach the store
	 * @return the claims, or the same claims with no caller's executor
	 */
	static List<LockBackend.Claim> forStore(List<LockBackend.Claim> claims) {
		for (LockBackend.Claim claim : claims) {
			if (forStore(claim) != claim) {
				return claims.stream().map(CallerRuns::forStore).toList();
			}
		}
		return claims;
	}

	private static boolean isVirtual(Thread thread) {
		if (IS_VIRTUAL == null) {
			return false;
		}
		try {
			return (boolean) IS_VIRTUAL.invokeExact(thread);
		}
		catch (Throwable ex) {
			return false;
		}
	}

	private static @Nullable MethodHandle isVirtualMethod() {
		try {
			return MethodHandles.publicLookup()
				.findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
		}
		catch (NoSuchMethodException | IllegalAccessException ex) {
			return null;
		}
	}

	/** How many ends of waits in progress this caller keeps, for tests. */
	int waitsToEnd() {
		ConcurrentLinkedQueue<DueEnd> dueEnds = this.dueEnds;
		return (dueEnds != null) ? dueEnds.size() : 0;
	}

	private ConcurrentLinkedQueue<DueEnd> dueEnds() {
		ConcurrentLinkedQueue<DueEnd> dueEnds = this.dueEnds;
		if (dueEnds == null) {
			ConcurrentLinkedQueue<DueEnd> made = new ConcurrentLinkedQueue<>();
			dueEnds = DUE_ENDS.compareAndSet(this, null, made) ? made : this.dueEnds;
		}
		return dueEnds;
	}

	/**
	 * Ends a wait of a blocking call at {@code deadline} on the caller's thread too, as
	 * the timer of the lock service's scheduler set for it does: that scheduler's threads
	 * also run the stages of non-blocking calls, which may block (in an acquisition of
	 * their own), and a scheduler the application gave may be busy with other work, and a
	 * blocking caller must still return by its deadline. Running {@code end} after the
	 * wait has ended does nothing.
	 * @param executor where the call's continuations run: only a blocking caller's
	 * {@code CallerRuns} ends the wait itself; {@code null} for none
	 * @param deadline when the wait ends
	 * @param waited the wait: once it ends, its end is forgotten, so that a call that
	 * waits many times (at a contended gate) keeps only the ends of waits in progress
	 * @param end ends the wait, such as by completing its future
	 */
	static void alsoEndAt(@Nullable Executor executor, Deadline deadline, CompletableFuture<?> waited, Runnable end) {
		if (executor instanceof CallerRuns callerRuns && !waited.isDone()) {
			DueEnd due = new DueEnd(deadline, end);
			ConcurrentLinkedQueue<DueEnd> dueEnds = callerRuns.dueEnds();
			dueEnds.add(due);
			waited.whenComplete((result, failure) -> dueEnds.remove(due));
			callerRuns.wakeCaller();
		}
	}

	@Override
	public void execute(Runnable task) {
		if (this.abandoned) {
			handOn(task);
			return;
		}
		queue(task);
		if (this.abandoned && unqueue(task)) {
			handOn(task);
			return;
		}
		wakeCaller();
	}

	/**
	 * Queues {@code task}: in {@link #first} if it is free and there is no queue yet,
	 * else at the end of the queue. Tasks handed in one after the other by one thread run
	 * in that order: a task left in {@code first} was put there while there was no queue
	 * ({@code more} read after the put), so every task queued later is behind it, and
	 * {@link #poll()} reads {@code first} before the queue; a task that finds a queue
	 * made meanwhile moves into it, behind the tasks queued before it.
	 */
	private void queue(Runnable task) {
		if (this.more == null && FIRST.compareAndSet(this, null, task)) {
			// Taken already (by the caller, or handed on), or moved behind the queue.
			if (this.more == null || !FIRST.compareAndSet(this, task, null)) {
				return;
			}
		}
		ConcurrentLinkedQueue<Runnable> more = this.more;
		if (more == null) {
			ConcurrentLinkedQueue<Runnable> made = new ConcurrentLinkedQueue<>();
			more = MORE.compareAndSet(this, null, made) ? made : this.more;
		}
		more.add(task);
	}

	/** Takes {@code task} back if nobody took it: whether it did. */
	private boolean unqueue(Runnable task) {
		if (FIRST.compareAndSet(this, task, null)) {
			return true;
		}
		ConcurrentLinkedQueue<Runnable> more = this.more;
		return more != null && more.remove(task);
	}

	/**
	 * The next task, or {@code null} if none is queued. The queue is read before
	 * {@link #first}: a task put there after that read, while a queue existed, moves into
	 * the queue (see {@link #queue(Runnable)}), so no task of the queue runs before one
	 * that its thread handed in earlier.
	 */
	private @Nullable Runnable poll() {
		ConcurrentLinkedQueue<Runnable> more = this.more;
		for (Runnable first; (first = this.first) != null;) {
			if (FIRST.compareAndSet(this, first, null)) {
				return first;
			}
		}
		return (more != null) ? more.poll() : null;
	}

	/**
	 * Runs a task of a caller that no longer waits on the fallback executor, or here if
	 * it refuses it: the lock service's own scheduler, stopped at the end of
	 * {@code close()}, after its drain gave up on the acquisitions still in flight. Their
	 * store answers come later, and what those took must still be given back.
	 */
	private void handOn(Runnable task) {
		try {
			this.fallback.execute(task);
		}
		catch (RejectedExecutionException ex) {
			task.run();
		}
	}

	/**
	 * Runs tasks on the calling thread until {@code result} completes, and returns it.
	 * @param interrupted ends the call when the thread is interrupted, before the tasks
	 * queued for it are handed on: a store's poll for a wait among them then finds the
	 * wait ended and sends nothing, instead of running its statement on the fallback
	 * executor, the scheduler that also runs the watchdog
	 * @throws InterruptedException if the thread is interrupted first; later tasks then
	 * run on the fallback executor
	 */
	<T> T await(CompletableFuture<T> result, Runnable interrupted) throws InterruptedException, ExecutionException {
		this.caller = Thread.currentThread();
		result.whenComplete((value, failure) -> wakeCaller());
		while (!result.isDone()) {
			if (Thread.interrupted()) {
				this.abandoned = true;
				interrupted.run();
				abandon();
				throw new InterruptedException();
			}
			Runnable task = poll();
			if (task != null) {
				task.run();
			}
			else if (!result.isDone()) {
				parkUntilAnEndIsDue();
			}
		}
		runQueued();
		return result.get();
	}

	/**
	 * Parks until woken, or until the first end of the call's waits is due, and runs the
	 * ends due then.
	 */
	private void parkUntilAnEndIsDue() {
		long left = Long.MAX_VALUE;
		ConcurrentLinkedQueue<DueEnd> dueEnds = this.dueEnds;
		if (dueEnds != null) {
			for (DueEnd due : dueEnds) {
				long dueIn = due.deadline().remainingNanos();
				if (dueIn <= 0) {
					if (dueEnds.remove(due)) {
						due.end().run();
					}
					// What it ended may have handed this thread a task, or ended the
					// call.
					return;
				}
				left = Math.min(left, dueIn);
			}
		}
		if (left == Long.MAX_VALUE) {
			LockSupport.park(this);
		}
		else {
			LockSupport.parkNanos(this, left);
		}
	}

	/**
	 * Runs tasks on the calling thread until {@code result} completes, whatever the
	 * interrupt flag, which is set again at the end if it was set at any point: for
	 * releases, which must reach the store.
	 */
	<T> T awaitUninterruptibly(CompletableFuture<T> result) throws ExecutionException {
		boolean interrupted = Thread.interrupted();
		this.caller = Thread.currentThread();
		result.whenComplete((value, failure) -> wakeCaller());
		try {
			while (!result.isDone()) {
				Runnable task = poll();
				if (task != null) {
					task.run();
				}
				else if (!result.isDone()) {
					parkUntilAnEndIsDue();
				}
				// An interrupt ends a park at once: clear it, so as not to spin.
				interrupted |= Thread.interrupted();
			}
			runQueued();
			return result.get();
		}
		catch (InterruptedException ex) {
			throw new IllegalStateException("A completed future cannot be interrupted", ex);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void wakeCaller() {
		Thread waiting = this.caller;
		if (waiting != null && waiting != Thread.currentThread()) {
			LockSupport.unpark(waiting);
		}
	}

	/** Tasks queued when the result completed belong to this call: run them too. */
	private void runQueued() {
		for (Runnable task; (task = poll()) != null;) {
			task.run();
		}
		this.abandoned = true;
		for (Runnable task; (task = poll()) != null;) {
			handOn(task);
		}
	}

	private void abandon() {
		this.abandoned = true;
		for (Runnable task; (task = poll()) != null;) {
			handOn(task);
		}
	}

	private record DueEnd(Deadline deadline, Runnable end) {
	}

}
