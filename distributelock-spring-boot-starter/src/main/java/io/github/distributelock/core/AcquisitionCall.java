package io.github.distributelock.core;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributelock.DistributeLockException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * What a call for one key ({@link Acquisition}) and a call for several keys in one round
 * trip ({@link BatchAcquisition}) share: the result and the moment nothing of the call is
 * left, an end from outside that cancels the wait in progress, the pause that grows
 * before each attempt after a store failure, and the log of how long the call waited.
 *
 * @param <T> what the call completes with when it takes its lock or locks
 * @param <A> the store's answer to one attempt
 */
abstract class AcquisitionCall<T, A> {

	static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private static final long FIRST_FAILURE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private static final long LONGEST_FAILURE_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final TimeoutException GIVE_BACK_UNANSWERED = new TimeoutException(
			"the give-back of a failed attempt was not answered by the deadline");

	final HeldLock.Parts parts;

	final Lifecycle lifecycle;

	/**
	 * Runs the continuations: the blocking caller's thread, or the thread that completed
	 * the store's answer.
	 */
	final Executor executor;

	final CompletableFuture<@Nullable T> result = new CompletableFuture<>();

	final CompletableFuture<Void> settled = new CompletableFuture<>();

	private final long startNanos = System.nanoTime();

	private volatile @Nullable CompletableFuture<?> pendingWait;

	/**
	 * When the store last answered an attempt of this call that was ended from outside
	 * before the answer came, on {@link System#nanoTime()}; 0 if it has not.
	 */
	private volatile long answeredAfterEndNanos;

	private long failurePauseNanos = FIRST_FAILURE_PAUSE_NANOS;

	/** The store failure the call tries again after, if any: what the caller hears of. */
	private volatile @Nullable Throwable lastFailure;

	/**
	 * Counts the attempt {@link #attemptAgain()} runs and the one due after it, if any.
	 */
	private final AtomicInteger attemptsDue = new AtomicInteger();

	AcquisitionCall(HeldLock.Parts parts, Lifecycle lifecycle, Executor executor) {
		this.parts = parts;
		this.lifecycle = lifecycle;
		this.executor = executor;
	}

	/** The key, or the keys joined by commas, as the request names them. */
	abstract String key();

	/** When the caller stops waiting. */
	abstract Deadline deadline();

	/**
	 * How long after its answer a lock this call takes is gone from the store by itself
	 * (the longest of its keys' leases), or a duration no wait reaches on a store whose
	 * locks live with the session.
	 */
	abstract Duration expiresAfter();

	/**
	 * When a blocking caller interrupted during this call stops waiting for the release
	 * of a lock the call took anyway: at its deadline, and one lease from now at most,
	 * since a caller with no deadline would otherwise wait as long as a store that does
	 * not answer; a store with leases has freed the lock by itself by then. On a store
	 * whose locks live with the session, which frees nothing by itself, at the deadline
	 * only. Past that the release goes on without the caller, retried if it fails, and
	 * the keys stay gated in this JVM until it has been answered.
	 */
	Deadline interruptedWaitEnd() {
		return deadline().atMost(expiresAfter());
	}

	/**
	 * Waits, for a blocking caller interrupted at {@code interruptNanos}, until this call
	 * has settled (its attempt in flight answered and what it took given back): until the
	 * deadline, and one lease after the interrupt or after the store's last answer,
	 * whichever is later, as what that answer took is gone from a store with leases by
	 * then. A bound counted from the interrupt alone let a caller with a lease shorter
	 * than two round trips return while its lock was still in the store.
	 */
	final void awaitSettledAfterInterrupt(long interruptNanos) {
		long expiryNanos = Deadline.saturatedNanos(expiresAfter());
		while (true) {
			long answered = this.answeredAfterEndNanos;
			long from = (answered != 0 && answered - interruptNanos > 0) ? answered : interruptNanos;
			Deadline end = deadline().atMost(Duration.ofNanos(Math.max(0, from + expiryNanos - System.nanoTime())));
			if (end.awaitUninterruptibly(this.settled) || this.answeredAfterEndNanos == answered) {
				return;
			}
		}
	}

	/**
	 * Notes that the store answered an attempt of this call, on the thread that got the
	 * answer: one lease from then, what it took is gone from a store with leases
	 * ({@link #awaitSettledAfterInterrupt}). A hand-over is such an attempt too.
	 */
	final void recordAnswer() {
		if (this.result.isDone()) {
			this.answeredAfterEndNanos = System.nanoTime();
		}
	}

	/** One attempt at the store. */
	abstract void attempt();

	/** Lets go of what this call holds locally and settles it. */
	abstract void abandon();

	/** Whether the store's answer is that the attempt took the lock or locks. */
	abstract boolean acquiredIn(A attempt);

	/** Goes on from an attempt that took the lock or locks. */
	abstract void acquired(A attempt, long attemptStart, long lossReports);

	/**
	 * Ends the call if it was ended from outside or its deadline passed; otherwise
	 * {@link #startWait starts the wait}.
	 */
	abstract void awaitRelease(A attempt);

	/**
	 * Starts the wait for the release that lets the next attempt succeed, until the
	 * deadline; what ends it goes on on the executor.
	 */
	abstract void startWait(A attempt);

	/** Goes on from an attempt whose answer failed, which the store may have applied. */
	abstract void giveBackAfterFailure(Throwable failure, long attemptStart);

	/**
	 * Goes on from the store's answer to an attempt. A wait for a release starts on the
	 * thread that got the answer, as it needs nothing of a blocking caller's thread:
	 * waking the caller only for that costs a park and an unpark per failed attempt,
	 * which is every acquisition of a fair lock under contention. Whatever ends the call
	 * (taken, not taken, failed, given up) runs on the executor, so that a blocking
	 * caller's tracker hears of it on the caller's thread.
	 */
	final void goOn(CompletableFuture<A> answer, long attemptStart, long lossReports) {
		answer.whenComplete((attempt, failure) -> {
			recordAnswer();
			if (failure == null && !acquiredIn(attempt) && !this.result.isDone() && !deadline().hasPassed()) {
				// Ended from outside or past its deadline meanwhile, the wait ends at
				// once, and the end runs on the executor.
				startWait(attempt);
				return;
			}
			this.executor.execute(() -> {
				if (failure != null) {
					afterFailedAttempt(failure, attemptStart);
				}
				else if (acquiredIn(attempt)) {
					acquired(attempt, attemptStart, lossReports);
				}
				else {
					awaitRelease(attempt);
				}
			});
		});
	}

	/**
	 * Goes on from an attempt whose answer failed; one that was not sent
	 * ({@link AttemptNotSent}) took nothing, so there is nothing to give back.
	 */
	final void afterFailedAttempt(Throwable failure, long attemptStart) {
		if (StoreCalls.unwrap(failure) instanceof AttemptNotSent notSent) {
			notSent(notSent);
		}
		else {
			giveBackAfterFailure(failure, attemptStart);
		}
	}

	/**
	 * Ends a call whose attempt was not sent at its deadline, as a failed attempt at the
	 * deadline does: the caller hears of the last store failure, and the key stays gated
	 * here until the releases that had to go first have been answered, which are retried
	 * in the background from then on if they failed.
	 */
	private void notSent(AttemptNotSent notSent) {
		Throwable last = this.lastFailure;
		this.result.completeExceptionally(
				(last != null || this.lifecycle.isClosed()) ? endedBy(last)
						: new DistributeLockException("Could not acquire " + describe() + " in "
								+ this.parts.store().name() + ": " + notSent.getMessage(), key(),
								this.parts.store().name(), null));
		notSent.releasesAnswered().whenCompleteAsync((answered, failure) -> abandon(), this.executor);
	}

	/**
	 * Goes on once the give-back of an attempt that failed has been answered: tries
	 * again, or fails with {@code failure} at the deadline. A give-back the store has not
	 * answered by the deadline (a ZooKeeper release waits for the reconnection, a JDBC
	 * one for a pooled connection) goes on without the caller, who hears of
	 * {@code failure} then; the key stays gated here until it has been answered, and it
	 * is retried in the background if it failed.
	 */
	final void afterGiveBack(CompletableFuture<?> giveBack, Throwable failure) {
		CompletableFuture<?> inTime = giveBack.copy();
		this.parts.store().expire(inTime, deadline(), GIVE_BACK_UNANSWERED, this.executor);
		inTime.whenCompleteAsync((released, releaseFailure) -> {
			if (releaseFailure == GIVE_BACK_UNANSWERED) {
				this.result.completeExceptionally(endedBy(failure));
				giveBack.whenCompleteAsync((answered, answerFailure) -> abandon(), this.executor);
				return;
			}
			if (releaseFailure != null && StoreCalls.unwrap(releaseFailure) != failure) {
				failure.addSuppressed(StoreCalls.unwrap(releaseFailure));
			}
			if (this.result.isDone()) {
				abandon();
			}
			else if (deadline().hasPassed() || this.lifecycle.isClosed()) {
				failed(failure);
			}
			else {
				backOff(failure);
			}
		}, this.executor);
	}

	/**
	 * What the caller hears of a call ended at its deadline by {@code failure}: the
	 * shutdown, if the lock is closing, else the store failure named with the key.
	 */
	private Throwable endedBy(@Nullable Throwable failure) {
		return this.lifecycle.isClosed() ? this.lifecycle.shuttingDown(key(), failure)
				: this.parts.store().failure(key(), "acquire", Objects.requireNonNull(failure));
	}

	/** Whether the call tries again after a store failure. */
	final boolean retrying() {
		return this.lastFailure != null;
	}

	/**
	 * Attempts again once a wait for a release has ended, in a loop rather than nested in
	 * the attempt before it. When the store answers at once on the thread that asks (as
	 * the in-memory store does) and the wait ends at once (a release since the attempt),
	 * a non-blocking call, whose continuations run where they are completed, would
	 * otherwise nest one attempt per wait: a few hundred in a row overflowed the stack,
	 * and the future running the continuation swallowed the error, leaving the call
	 * neither waiting nor ended, its keys gated in this JVM.
	 */
	final void attemptAgain() {
		if (this.attemptsDue.getAndIncrement() != 0) {
			return;
		}
		do {
			try {
				attempt();
			}
			catch (RuntimeException | Error ex) {
				// A later wait must still be able to attempt.
				this.attemptsDue.set(0);
				throw ex;
			}
		}
		while (this.attemptsDue.decrementAndGet() != 0);
	}

	/**
	 * Completes with the lock or locks, with {@code null} when the wait time passed, or
	 * fails.
	 */
	final CompletableFuture<@Nullable T> result() {
		return this.result;
	}

	/** Completes once nothing of this call is left: gates, table, store. */
	final CompletableFuture<Void> settled() {
		return this.settled;
	}

	/**
	 * Ends the call from outside; what its attempt in flight takes is given back.
	 */
	final void fail(Throwable failure) {
		if (this.result.completeExceptionally(failure)) {
			cancelWait();
		}
	}

	/** Ends the wait in progress, if any. */
	final void cancelWait() {
		CompletableFuture<?> wait = this.pendingWait;
		if (wait != null) {
			StoreCalls.endWait(wait);
		}
	}

	/** Remembers the wait in progress, for {@link #fail} to cancel. */
	final void waitingOn(CompletableFuture<?> wait) {
		this.pendingWait = wait;
		if (this.result.isDone()) {
			StoreCalls.endWait(wait);
		}
	}

	/** Tries again after a store failure, once a pause that grows has passed. */
	final void backOff(Throwable failure) {
		this.lastFailure = failure;
		long pause = Math.min(this.failurePauseNanos, deadline().remainingNanos());
		this.failurePauseNanos = Math.min(this.failurePauseNanos * 2, LONGEST_FAILURE_PAUSE_NANOS);
		if (logger.isDebugEnabled()) {
			logger.debug("Retrying " + describe() + " in " + this.parts.store().name() + " in "
					+ TimeUnit.NANOSECONDS.toMillis(pause) + " ms after a store failure: " + failure.getMessage());
		}
		CompletableFuture<Void> paused = new CompletableFuture<>();
		try {
			ScheduledFuture<?> due = this.parts.store().schedule(() -> paused.complete(null), pause);
			paused.whenComplete((ended, endedEarly) -> due.cancel(false));
		}
		catch (RejectedExecutionException ex) {
			failed(this.lifecycle.shuttingDown(key(), failure));
			return;
		}
		CallerRuns.alsoEndAt(this.executor, Deadline.after(Duration.ofNanos(pause)), paused,
				() -> paused.complete(null));
		// A wait like any other: a caller who gives up (a cancelled future, an interrupt,
		// the shutdown) ends it, and the call lets go of the key at once, not up to a
		// second later.
		waitingOn(paused);
		paused.whenComplete((ended, endedEarly) -> this.executor.execute(this::attempt));
	}

	final void failed(Throwable failure) {
		this.result.completeExceptionally(this.parts.store().failure(key(), "acquire", failure));
		abandon();
	}

	/**
	 * Logs at debug level how long the call took, e.g. {@code Acquired lock 'k' in redis
	 * after waiting 3 ms}.
	 * @param outcome the words before the key's name, e.g. {@code Acquired}
	 * @param waited the words between the store's name and the time
	 */
	final void logWaited(String outcome, String waited) {
		if (logger.isDebugEnabled()) {
			logger.debug(outcome + " " + describe() + " in " + this.parts.store().name() + waited
					+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.startNanos) + " ms");
		}
	}

	/** The lock or locks asked for, as the log names them: {@code lock 'k'}. */
	abstract String describe();

}
