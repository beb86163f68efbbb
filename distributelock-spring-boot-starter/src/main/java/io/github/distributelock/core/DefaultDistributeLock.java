package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The {@link DistributeLock} of every backend: waiting with one deadline, reentrancy,
 * lease renewal by a watchdog, lost-lock detection and reporting, and retries of
 * transient store failures, over the primitives of a {@link LockBackend}.
 * <p>
 * Both ways to wait share one engine: the blocking methods lend the caller's thread to it
 * until the result is there, {@link #tryAcquireAsync(LockRequest)} parks no thread.
 *
 * @since 1.0.0
 */
public class DefaultDistributeLock implements DistributeLock, AutoCloseable {

	/** The lease renewed by the watchdog when none is given. */
	public static final Duration DEFAULT_WATCHDOG_LEASE = Duration.ofSeconds(30);

	/**
	 * The longest lease the watchdog can renew, {@link Long#MAX_VALUE} nanoseconds (about
	 * 292 years).
	 */
	public static final Duration LONGEST_WATCHDOG_LEASE = Duration.ofNanos(Long.MAX_VALUE);

	/**
	 * Why a lock service closed by {@link #close()} shuts down, as its exceptions say.
	 */
	static final String CLOSED_DIRECTLY = "DefaultDistributeLock.close() was called";

	/** How long {@link #close()} lets the acquisitions in flight end. */
	private static final Duration SHUTDOWN_DRAIN_TIMEOUT = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private static final Executor SAME_THREAD = Runnable::run;

	private final StoreCalls store;

	private final LocalLocks locks = new LocalLocks();

	private final Losses losses;

	private final HeldLock.Parts parts;

	private final Lifecycle lifecycle;

	/** Completes when the first {@link #close()} has released everything. */
	private final CompletableFuture<@Nullable Void> closeEnded = new CompletableFuture<>();

	private final LockEventListener events;

	private final ScheduledExecutorService scheduler;

	private final boolean ownsScheduler;

	private final String ownerPrefix = UUID.randomUUID() + ":";

	private final AtomicLong ownerSequence = new AtomicLong();

	private final MultiKeyLocks multiKey;

	/**
	 * Creates a lock with a 30 second watchdog lease that logs lost locks.
	 * @param backend the store
	 */
	public DefaultDistributeLock(LockBackend backend) {
		this(backend, DEFAULT_WATCHDOG_LEASE, false, LockEventListener.NONE, null);
	}

	/**
	 * Creates a lock.
	 * @param backend the store
	 * @param watchdogLease the lease of locks taken without a fixed lease, renewed every
	 * third of it; at least 1 ms, at most {@link #LONGEST_WATCHDOG_LEASE}
	 * @param throwOnLost whether a release throws
	 * {@link io.github.distributelock.LockLostException} when the lock had been lost
	 * @param events told of every acquisition, for metrics and traces
	 * @param scheduler runs the watchdog, timers and background retries; {@code null}
	 * creates one that {@link #close()} stops; a given one is left running, without the
	 * watchdog's periodic task once {@link #close()} has returned
	 */
	public DefaultDistributeLock(LockBackend backend, Duration watchdogLease, boolean throwOnLost,
			LockEventListener events, @Nullable ScheduledExecutorService scheduler) {
		if (watchdogLease.isNegative() || watchdogLease.compareTo(Duration.ofMillis(1)) < 0
				|| watchdogLease.compareTo(LONGEST_WATCHDOG_LEASE) > 0) {
			// The watchdog counts its period in nanoseconds.
			throw new IllegalArgumentException("watchdogLease must be at least 1 ms and at most "
					+ LONGEST_WATCHDOG_LEASE.toDays() + " days, was " + watchdogLease);
		}
		this.ownsScheduler = (scheduler == null);
		this.scheduler = (scheduler != null) ? scheduler : createScheduler();
		this.store = new StoreCalls(backend, this.scheduler);
		this.losses = new Losses(this.store, this.locks, throwOnLost);
		this.parts = new HeldLock.Parts(this.store, new Watchdog(this.store, this.scheduler, watchdogLease),
				this.losses);
		this.lifecycle = new Lifecycle(backend.name());
		this.events = GuardedLockTracker.guard(events);
		this.multiKey = new MultiKeyLocks(this, this.store,
				new MultiKeyBatches(this.locks, this.parts, this.lifecycle, this.events, this::nextOwner));
		if (backend instanceof SessionLockBackend session) {
			session.addLossListener(this.losses);
		}
	}

	private static ScheduledExecutorService createScheduler() {
		ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(2, SchedulerThread::new);
		scheduler.setRemoveOnCancelPolicy(true);
		scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
		return scheduler;
	}

	@Override
	public Optional<LockHandle> tryAcquire(LockRequest request) throws InterruptedException {
		String key = request.key();
		if (Thread.interrupted()) {
			throw new InterruptedException("Interrupted before acquiring lock '" + key + "' in " + this.store.name());
		}
		if (request.isMultiKey()) {
			this.store.refuseBlockingOnItsAnswerThread(key);
			return this.multiKey.tryAcquire(request);
		}
		LockKind kind = LockKind.of(request);
		Object reentrancyOwner = (request.owner() == null) ? Thread.currentThread() : null;
		LocalLocks.Slot slot = this.locks.enter(key);
		HeldLock reentered;
		try {
			// Once close() has begun, a re-entry is refused as any later acquisition is:
			// the lock it would re-enter is being released.
			reentered = this.lifecycle.isClosed() ? null : slot.reentrant(reentrancyOwner, kind, this.store.name());
		}
		catch (RuntimeException ex) {
			slot.leave(null);
			throw ex;
		}
		if (reentered != null) {
			slot.leave(null);
			return Optional.of(reentered.newHandle());
		}
		try {
			this.store.refuseBlockingOnItsAnswerThread(key);
		}
		catch (RuntimeException ex) {
			slot.leave(null);
			throw ex;
		}
		CallerRuns callerRuns = this.store.callerRuns();
		Acquisition acquisition;
		try {
			acquisition = start(slot, request, reentrancyOwner, callerRuns, callerRuns);
		}
		catch (RuntimeException ex) {
			slot.leave(null);
			throw ex;
		}
		try {
			return Optional
				.ofNullable(callerRuns.await(acquisition.result(),
						() -> acquisition.fail(new CancellationException("interrupted"))))
				.map(HeldLock::newHandle);
		}
		catch (InterruptedException ex) {
			long interruptNanos = System.nanoTime();
			// Nothing is left in the store: what the attempt in flight takes is given
			// back, and the caller hears of the interrupt once it has been, or at its
			// deadline (or one lease) at the latest. A store that does not answer (a
			// ZooKeeper release waiting for the reconnection, a JDBC one for a pooled
			// connection) kept it for as long: the give-back goes on without it, retried
			// in the background if it fails, and the key stays gated here until it has
			// been answered. The caller's thread runs none of it: await() ended the call
			// and handed its tasks on.
			acquisition.awaitSettledAfterInterrupt(interruptNanos);
			HeldLock takenAnyway = acquisition.result().exceptionally((failure) -> null).getNow(null);
			if (takenAnyway != null) {
				// The attempt in flight took it as the interrupt came; released on the
				// store's threads, which go on if the caller leaves at its deadline.
				acquisition.interruptedWaitEnd()
					.awaitUninterruptibly(takenAnyway.releaseAll(null).whenComplete((released, failure) -> {
						if (failure != null) {
							logger.debug("Gave back lock '" + key + "' of an interrupted acquisition with a failure",
									failure);
						}
					}));
			}
			Thread.interrupted();
			InterruptedException interrupted = new InterruptedException(
					"Interrupted while acquiring lock '" + key + "' in " + this.store.name());
			interrupted.initCause(ex);
			throw interrupted;
		}
		catch (ExecutionException ex) {
			throw StoreCalls.asUnchecked(ex);
		}
	}

	@Override
	public CompletableFuture<Optional<LockHandle>> tryAcquireAsync(LockRequest request) {
		if (request.isMultiKey()) {
			return this.multiKey.tryAcquireAsync(request);
		}
		LocalLocks.Slot slot = this.locks.enter(request.key());
		CompletableFuture<Optional<LockHandle>> handle = new CompletableFuture<>();
		Acquisition acquisition;
		try {
			acquisition = start(slot, request, null, null, SAME_THREAD);
		}
		catch (RuntimeException ex) {
			slot.leave(null);
			return CompletableFuture.failedFuture(ex);
		}
		acquisition.result().whenComplete((lock, failure) -> {
			if (failure != null) {
				handle.completeExceptionally(StoreCalls.unwrap(failure));
			}
			else if (!handle.complete(Optional.ofNullable(lock).map(HeldLock::newHandle)) && lock != null) {
				// Cancelled as the lock came: nobody has its handle.
				lock.releaseAll(null);
			}
		});
		handle.whenComplete((result, failure) -> endedByTheCaller(acquisition, failure));
		return handle;
	}

	/**
	 * Ends an acquisition whose future its caller completed, by {@code cancel},
	 * {@code orTimeout} or any other way, before the acquisition did: nobody waits for it
	 * any more, so it gives up its place and a lock taken anyway is given back.
	 */
	static void endedByTheCaller(AcquisitionCall<?, ?> acquisition, @Nullable Throwable failure) {
		if (!acquisition.result().isDone()) {
			acquisition.fail((failure != null) ? failure
					: new CancellationException("The caller completed the future of the acquisition"));
		}
	}

	/**
	 * How long after its answer a lock taken with this fixed lease, or none, is gone from
	 * the store by itself.
	 */
	Duration expiresAfter(@Nullable Duration fixedLease) {
		return this.parts.watchdog().expiresAfter(fixedLease);
	}

	private Acquisition start(LocalLocks.Slot slot, LockRequest request, @Nullable Object reentrancyOwner,
			@Nullable Executor callerExecutor, Executor continuations) {
		String key = request.key();
		String owner = (request.owner() != null) ? request.owner() : nextOwner();
		LockKind kind = LockKind.of(request);
		if (request.owner() != null) {
			this.store.refuseWhileAReleaseIsPending(key, owner);
			if (!kind.equals(LockKind.EXCLUSIVE)) {
				slot.claimOwner(owner, kind, this.store.name());
			}
			slot.useOwner(owner);
		}
		LockTracker tracker = (this.events == LockEventListener.NONE) ? LockTracker.NONE : this.events.acquiring(key,
				(request.name() != null) ? request.name() : LockNames.fromKey(key), this.store.name(), kind);
		Deadline deadline = Deadline.after(request.waitTime());
		Acquisition.Request wanted = new Acquisition.Request(
				new LockBackend.Claim(key, owner, callerExecutor, kind, request.owner() == null).until(deadline),
				request.leaseTime(), deadline, reentrancyOwner, request.minimumHold(), request.skipsWhenBusy(),
				request.owner() != null);
		Acquisition acquisition = new Acquisition(this.parts, this.lifecycle, slot, wanted, tracker, continuations)
			.start();
		if (callerExecutor == null) {
			tracker.detached();
		}
		return acquisition;
	}

	@Override
	public boolean releaseLock(String lockKey, String lockValue) {
		// Checked as tryLock checks them, before the store sees them.
		LockRequest.of(lockKey).withOwner(lockValue);
		if (this.lifecycle.isClosed()) {
			// close() released what this instance held; the store may be gone already.
			logger.debug("Not releasing lock '" + lockKey + "': the lock service is shut down");
			return false;
		}
		HeldLock held = this.locks.held(lockKey, lockValue);
		if (this.store.deliversAnswersOnThisThread()) {
			return releaseWithoutWaiting(lockKey, held);
		}
		CallerRuns callerRuns = this.store.callerRuns();
		// A value may have locked from another instance: the store checks the owner.
		Executor releasing = callerRuns.forRelease();
		CompletableFuture<Boolean> released = (held != null) ? held.releaseAll(releasing) : this.store
			.releaseByValue(new LockBackend.Claim(lockKey, lockValue, CallerRuns.forStatements(releasing)));
		try {
			return callerRuns.awaitUninterruptibly(released);
		}
		catch (ExecutionException ex) {
			throw StoreCalls.asUnchecked(ex);
		}
	}

	/**
	 * On the store's answer thread, where waiting for the answer would wait for ever: a
	 * lock this instance holds is let go and its release sent (retried after a store
	 * failure, as any release); the answer about any other value cannot be waited for.
	 */
	private boolean releaseWithoutWaiting(String lockKey, @Nullable HeldLock held) {
		if (held == null) {
			throw new IllegalStateException("Could not release lock '" + lockKey + "' in " + this.store.name()
					+ ": this instance does not hold it with this value, so only the store can tell whether it does, "
					+ "and the call runs on " + Thread.currentThread().getName() + ", the thread that delivers the "
					+ "store's answers, where waiting for that answer would wait for ever. Release it from another "
					+ "thread.");
		}
		held.releaseAll(null).whenComplete((released, failure) -> {
			if (failure != null) {
				logger.debug("Released lock '" + lockKey + "' without waiting, with a failure", failure);
			}
		});
		return true;
	}

	/**
	 * Whether the calling thread is one of the store client's threads that deliver this
	 * lock's answers ({@link StoreClientThreads}): a blocking acquisition is refused
	 * there, and a release is sent without waiting for its answer.
	 * @return {@code true} on such a thread
	 */
	public boolean onTheStoresAnswerThread() {
		return this.store.deliversAnswersOnThisThread();
	}

	/**
	 * Whether the calling thread is one that completes this lock's non-blocking calls,
	 * where a wait for such a call's future may wait for itself: a thread of the store's
	 * client that delivers its answers ({@link #onTheStoresAnswerThread()}), or of the
	 * scheduler a lock service creates, whose timers end those calls' waits. A blocking
	 * acquisition is allowed on the scheduler, as it ends its own waits.
	 * @return {@code true} on such a thread
	 * @since 1.0.0
	 */
	public boolean completesCallsOnThisThread() {
		return Thread.currentThread() instanceof SchedulerThread || this.store.deliversAnswersOnThisThread();
	}

	/**
	 * Refuses a re-entry that an adapter keeps count of itself, such as a reactive
	 * pipeline's through its Reactor context, once {@link #close()} has begun, as this
	 * lock service refuses a thread's: the hold it would enter is being released.
	 * @param lockKey the key to re-enter
	 * @throws io.github.distributelock.LockServiceShutdownException if {@code close()}
	 * has begun
	 * @since 1.0.0
	 */
	public void refuseReentryOnceClosing(String lockKey) {
		this.lifecycle.requireOpen(lockKey);
	}

	/**
	 * The locks this instance holds now.
	 * @return a snapshot of the held locks
	 */
	public List<HeldLockInfo> heldLocks() {
		return this.locks.held().stream().map(HeldLockInfo::of).toList();
	}

	/**
	 * How many callers of this instance wait for another of its callers to release
	 * {@code key}.
	 */
	int waitingAtGate(String key) {
		return this.locks.waitingAtGate(key);
	}

	/**
	 * How many locks were lost while held since this instance was created.
	 * @return the number of lost locks
	 */
	public long lostLockCount() {
		return this.losses.count();
	}

	/**
	 * The backend this lock runs on.
	 * @return the backend
	 */
	public LockBackend backend() {
		return this.store.backend();
	}

	/**
	 * Shuts the lock service down: waiting acquisitions end with a
	 * {@link DistributeLockException}, attempts in flight are given a few seconds to end,
	 * the locks still held are released, releases still retried get a last attempt, the
	 * watchdog stops, the backend's loss reports are no longer heard, lost-lock listeners
	 * already due still run on their thread (which then ends), and later acquisitions
	 * fail with a {@link DistributeLockException}. Closing twice does nothing the second
	 * time.
	 */
	@Override
	public void close() {
		close(CLOSED_DIRECTLY);
	}

	/**
	 * Shuts the lock service down as {@link #close()} does, saying why in the
	 * {@link io.github.distributelock.LockServiceShutdownException} of every acquisition
	 * it ends or refuses. Only the first close's reason counts.
	 * @param reason why the lock service shuts down, such as {@code "the application
	 * context is closing"}
	 */
	public void close(String reason) {
		if (!this.lifecycle.close(reason)) {
			awaitTheFirstClose();
			return;
		}
		try {
			releaseEverything();
		}
		finally {
			this.closeEnded.complete(null);
		}
	}

	/**
	 * A second caller returns once the first close has released everything, so that
	 * nothing is held when any close() returns; a close re-entered from the first (by a
	 * listener it notifies, or a stage of an acquisition it ends), or called on the
	 * thread the store's client answers on (which the first may wait for), returns at
	 * once.
	 */
	private void awaitTheFirstClose() {
		if (this.lifecycle.closingOnThisThread() || this.store.deliversAnswersOnThisThread()) {
			return;
		}
		boolean interrupted = false;
		while (!this.closeEnded.isDone()) {
			try {
				this.closeEnded.get();
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
			catch (ExecutionException ex) {
				break;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private void releaseEverything() {
		// Ended waiters and attempts in flight settle while the store can still be
		// reached; one that takes a lock now gives it back at once.
		int stillRunning = this.lifecycle.awaitDrained(SHUTDOWN_DRAIN_TIMEOUT);
		if (stillRunning > 0) {
			logger.warn(stillRunning + " lock acquisitions in " + this.store.name() + " were still running "
					+ SHUTDOWN_DRAIN_TIMEOUT.toSeconds() + " s after the shutdown began");
		}
		// Sent side by side and waited for together: one at a time, a store that does not
		// answer would hold the shutdown up for a client timeout per lock held.
		Deadline releasesEnd = Deadline.after(SHUTDOWN_DRAIN_TIMEOUT);
		List<HeldLock> held = this.locks.held();
		List<CompletableFuture<Boolean>> releases = new ArrayList<>(held.size());
		for (HeldLock lock : held) {
			releases.add(releaseAtShutdown(lock));
		}
		if (!releasesEnd.awaitUninterruptibly(CompletableFuture.allOf(releases.toArray(CompletableFuture[]::new)))) {
			List<String> unanswered = new ArrayList<>();
			for (int i = 0; i < held.size(); i++) {
				if (!releases.get(i).isDone()) {
					unanswered.add(held.get(i).key);
				}
			}
			logger.warn("The releases of " + unanswered.size() + " locks in " + this.store.name()
					+ " were not answered " + SHUTDOWN_DRAIN_TIMEOUT.toSeconds()
					+ " s after they were sent at shutdown; the store frees them when their lease or session ends: "
					+ unanswered);
		}
		this.store.drainRetries(releasesEnd);
		if (backend() instanceof SessionLockBackend session) {
			session.removeLossListener(this.losses);
		}
		this.parts.watchdog().close();
		if (this.ownsScheduler) {
			this.scheduler.shutdownNow();
		}
		// After the releases above, which may have told some of a loss.
		this.losses.close();
	}

	private CompletableFuture<Boolean> releaseAtShutdown(HeldLock lock) {
		try {
			return lock.releaseAll(null).whenComplete((released, failure) -> {
				if (failure != null) {
					logger.warn("Could not release lock '" + lock.key + "' at shutdown", StoreCalls.unwrap(failure));
				}
			});
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release lock '" + lock.key + "' at shutdown", ex);
			return CompletableFuture.failedFuture(ex);
		}
	}

	private String nextOwner() {
		return this.ownerPrefix + this.ownerSequence.incrementAndGet();
	}

	/**
	 * A thread of a scheduler the lock service creates, told from other threads by its
	 * class, as the stages of non-blocking calls run on it.
	 */
	private static final class SchedulerThread extends Thread {

		SchedulerThread(Runnable task) {
			super(task, "distributelock-watchdog");
			setDaemon(true);
		}

	}

}
