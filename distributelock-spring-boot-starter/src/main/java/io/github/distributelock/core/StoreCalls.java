package io.github.distributelock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.distributelock.DistributeLockException;
import io.github.distributelock.LockKindConflictException;
import org.jspecify.annotations.Nullable;

/**
 * The store as the engine calls it: every failure named with the key and the backend, and
 * releases that failed for a store error retried in the background
 * ({@link ReleaseRetries}).
 */
final class StoreCalls {

	private final LockBackend backend;

	private final ScheduledExecutorService scheduler;

	private final ReleaseRetries retries;

	StoreCalls(LockBackend backend, ScheduledExecutorService scheduler) {
		this.backend = backend;
		this.scheduler = scheduler;
		this.retries = new ReleaseRetries(backend.name(), this::releaseOnce, scheduler);
	}

	String name() {
		return this.backend.name();
	}

	LockBackend backend() {
		return this.backend;
	}

	/** A thread of a blocking caller, lent to the engine while it waits. */
	CallerRuns callerRuns() {
		return new CallerRuns(this.scheduler);
	}

	/**
	 * One attempt, after the releases still to be sent for its key and owner.
	 * @param retrying whether the call tries again after a store failure, which it then
	 * hears of at its deadline even if that has passed already (see
	 * {@link #afterPendingReleases})
	 */
	CompletableFuture<AcquireResult> tryAcquire(LockBackend.Claim claim, Duration lease, boolean retrying) {
		if (this.retries.anyPending()) {
			return afterPendingReleases(claim, List.of(claim), releasesBound(claim, retrying),
					() -> acquireOnce(claim, lease), AcquireResult::acquired);
		}
		return acquireOnce(claim, lease);
	}

	private CompletableFuture<AcquireResult> acquireOnce(LockBackend.Claim claim, Duration lease) {
		return call(claim.key(), "acquire", () -> this.backend.tryAcquire(CallerRuns.forStore(claim), storable(lease)));
	}

	/**
	 * Runs {@code attempt} after the releases still to be sent for {@code claims}' keys
	 * and owners: a retried release of a give-back whose store call failed (the same
	 * call's next attempt claims the key with the same owner), or of a lock whose owner
	 * value a caller chose again, sent after the attempt, would end the lock it took. The
	 * attempt takes those releases over and sends them first; one that failed again is
	 * put back unless the attempt took the key, which that release would only end.
	 * <p>
	 * The wait for them ends at {@code releasesBy}: a release may hang for much longer
	 * than a round trip (a ZooKeeper release waits for the reconnection, a JDBC one for a
	 * pooled connection), and the caller would hang with it. The attempt is then not sent
	 * and fails with {@link AttemptNotSent}; the releases are put back once answered.
	 * @param releasesBy when to stop waiting for the releases, or {@code null} to wait
	 * until they are answered
	 */
	private <T> CompletableFuture<T> afterPendingReleases(LockBackend.Claim first, List<LockBackend.Claim> claims,
			@Nullable Deadline releasesBy, Supplier<CompletableFuture<T>> attempt, Predicate<T> took) {
		List<CompletableFuture<List<ReleaseRetries.TakenOver>>> takenOver = new ArrayList<>(1);
		for (LockBackend.Claim claim : claims) {
			CompletableFuture<List<ReleaseRetries.TakenOver>> sent = this.retries.takeOver(claim.key(), claim.owner());
			if (sent != null) {
				takenOver.add(sent);
			}
		}
		if (takenOver.isEmpty()) {
			return attempt.get();
		}
		Runnable putBack = () -> takenOver.forEach((releases) -> releases.join().forEach(this.retries::putBack));
		CompletableFuture<Void> answered = CompletableFuture.allOf(takenOver.toArray(CompletableFuture[]::new));
		CompletableFuture<Void> inTime = answered;
		if (releasesBy != null && !answered.isDone()) {
			inTime = answered.copy();
			CompletableFuture<Void> putBackOnceAnswered = new CompletableFuture<>();
			AttemptNotSent notSent = new AttemptNotSent(putBackOnceAnswered);
			inTime.whenComplete((sent, failure) -> {
				if (failure == notSent) {
					answered.thenRun(putBack).whenComplete((done, ex) -> {
						if (ex != null) {
							AcquisitionCall.logger.warn("Could not retry the releases of lock '" + first.key() + "' in "
									+ name() + " that its attempt at the deadline took over", ex);
						}
						putBackOnceAnswered.complete(null);
					});
				}
			});
			expire(inTime, releasesBy, notSent, first.callerExecutor());
		}
		return inTime.thenComposeAsync((sent) -> attempt.get().whenComplete((result, failure) -> {
			if (failure != null || !took.test(result)) {
				putBack.run();
			}
		}), CallerRuns.continuation(first.callerExecutor()));
	}

	/**
	 * Until when an attempt of {@code claim} waits for the releases it must send first:
	 * its caller's deadline, but for a first attempt whose deadline has passed before it
	 * starts (a wait of zero), whose one attempt must still follow them.
	 */
	private static @Nullable Deadline releasesBound(LockBackend.Claim claim, boolean retrying) {
		Deadline deadline = claim.deadline();
		return (deadline != null && (retrying || !deadline.hasPassed())) ? deadline : null;
	}

	/**
	 * {@code lease}, at most {@link LockBackend#LONGEST_LEASE}: every backend gets a
	 * lease its store can hold, and none needs a rule of its own.
	 */
	private static Duration storable(Duration lease) {
		return (lease.compareTo(LockBackend.LONGEST_LEASE) > 0) ? LockBackend.LONGEST_LEASE : lease;
	}

	private static List<Duration> storable(List<Duration> leases) {
		for (Duration lease : leases) {
			if (lease.compareTo(LockBackend.LONGEST_LEASE) > 0) {
				return leases.stream().map(StoreCalls::storable).toList();
			}
		}
		return leases;
	}

	/**
	 * Whether the backend takes these claims in one call
	 * ({@link MultiKeyLockBackend#batches(List)}).
	 */
	boolean batches(List<LockBackend.Claim> claims) {
		return this.backend instanceof MultiKeyLockBackend multiKey && multiKey.batches(claims);
	}

	/**
	 * One attempt at every claim in one call, failures named with the keys joined by
	 * commas, as the multi-key request names them.
	 * @param retrying as for {@link #tryAcquire}
	 */
	CompletableFuture<MultiKeyAcquireResult> tryAcquireAll(String keys, List<LockBackend.Claim> claims,
			List<Duration> leases, boolean retrying) {
		if (this.retries.anyPending()) {
			return afterPendingReleases(claims.get(0), claims, releasesBound(claims.get(0), retrying),
					() -> acquireAllOnce(keys, claims, leases), MultiKeyAcquireResult::acquired);
		}
		return acquireAllOnce(keys, claims, leases);
	}

	private CompletableFuture<MultiKeyAcquireResult> acquireAllOnce(String keys, List<LockBackend.Claim> claims,
			List<Duration> leases) {
		return call(keys, "acquire", () -> ((MultiKeyLockBackend) this.backend)
			.tryAcquireAll(CallerRuns.forStore(claims), storable(leases)));
	}

	/**
	 * Releases every claim in one call; when the store fails, each claim's release is
	 * retried in the background on its own, until its lease ends, and its answer
	 * completes exceptionally at once, named with its key.
	 * @param leaseEndNanos when each claim's lease ends on {@link System#nanoTime()}, or
	 * {@code null} for a store without leases
	 * @param answers completed with each claim's answer, in order
	 */
	void releaseAll(List<LockBackend.Claim> claims, List<@Nullable Long> leaseEndNanos,
			List<CompletableFuture<Boolean>> answers) {
		CompletableFuture<List<Boolean>> batch;
		try {
			batch = ((MultiKeyLockBackend) this.backend).releaseAll(CallerRuns.forStore(claims)).toCompletableFuture();
		}
		catch (RuntimeException | Error ex) {
			batch = CompletableFuture.failedFuture(ex);
		}
		BiConsumer<@Nullable List<Boolean>, @Nullable Throwable> answer = (released, failure) -> {
			for (int i = 0; i < claims.size(); i++) {
				LockBackend.Claim claim = claims.get(i);
				if (failure == null && released != null && released.size() == claims.size()) {
					answers.get(i).complete(released.get(i));
					continue;
				}
				Throwable cause = (failure != null) ? failure : new IllegalStateException(
						"The backend answered " + released + " to the release of " + claims.size() + " locks");
				DistributeLockException named = failure(claim.key(), "release", cause);
				this.retries.retry(claim.on(null), leaseEndNanos.get(i), named);
				answers.get(i).completeExceptionally(named);
			}
		};
		// Answered on the waiting caller's thread, the keys' releases end there in one
		// task. Answered on the client's thread, each key handed the caller a task of its
		// own, and the caller often parked in between: 1.65 parks per two-key close on
		// Redis, against 1.0 now and for one key.
		Executor callerExecutor = claims.isEmpty() ? null : claims.get(0).callerExecutor();
		batch.whenCompleteAsync(answer, CallerRuns.continuation(callerExecutor));
	}

	/**
	 * Waits for a release; cancelling the returned stage cancels the backend's, which
	 * frees what the backend holds for the wait.
	 */
	CompletableFuture<Void> awaitRelease(LockBackend.Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		CompletableFuture<Void> stage;
		try {
			stage = this.backend.awaitRelease(CallerRuns.forStore(claim), lastAttempt, deadline).toCompletableFuture();
		}
		catch (RuntimeException | Error ex) {
			return CompletableFuture.failedFuture(failure(claim.key(), "wait for", ex));
		}
		CompletableFuture<Void> named = named(claim.key(), "wait for", stage);
		named.whenComplete((result, failure) -> {
			if (failure != null && !stage.isDone()) {
				endWait(stage);
			}
		});
		return named;
	}

	/**
	 * Ends {@code wait} from outside, as {@code cancel(false)} would, without a stack
	 * trace: a cancel builds one for the wait and one more for every stage that depends
	 * on it, and a fair lock's hand-over ends its taker's wait in the store every time,
	 * where those traces cost more CPU than the hand-over's round trip.
	 * @param wait a wait of the engine or of a backend, whose stages only ask whether it
	 * failed, not how
	 */
	static void endWait(CompletableFuture<?> wait) {
		wait.completeExceptionally(new WaitEnded());
	}

	CompletableFuture<Boolean> renew(LockBackend.Claim claim, Duration lease) {
		return call(claim.key(), "renew", () -> this.backend.renew(CallerRuns.forStore(claim), storable(lease)));
	}

	/**
	 * Releases the lock once; a failure is only reported.
	 */
	CompletableFuture<Boolean> releaseOnce(LockBackend.Claim claim) {
		return call(claim.key(), "release", () -> this.backend.release(CallerRuns.forStore(claim)));
	}

	/**
	 * Releases the lock, and when the store fails, retries in the background until
	 * {@code leaseEndNanos} and completes exceptionally at once.
	 * @param leaseEndNanos when the lease ends on {@link System#nanoTime()}, or
	 * {@code null} for a store without leases
	 */
	CompletableFuture<Boolean> release(LockBackend.Claim claim, @Nullable Long leaseEndNanos) {
		return releaseOnce(claim).whenComplete((released, failure) -> {
			if (failure != null) {
				this.retries.retry(claim.on(null), leaseEndNanos, failure);
			}
		});
	}

	/**
	 * Releases a lost lock unless a call of this instance claims its key with its owner
	 * value, and with a claim that comes while it is on its way, sends it before that
	 * claim's attempt: either the release sees the claim and is not sent, or the claim
	 * finds it among the releases to send first ({@link ReleaseRetries#takeOver}).
	 * Retried in the background if the store fails, as {@link #release} is.
	 * @param claimed whether a call of this instance claims the key with that value;
	 * asked once the release is listed
	 * @return whether the store still had the lock; {@code false} when not sent
	 */
	CompletableFuture<Boolean> releaseUnlessClaimed(LockBackend.Claim claim, @Nullable Long leaseEndNanos,
			BooleanSupplier claimed) {
		return this.retries.releaseUnless(claim.on(null), leaseEndNanos, claimed);
	}

	/**
	 * Releases a lock by its owner value, which this instance may not hold: at once, also
	 * one whose release is put off to the end of its minimum hold or retried after a
	 * store failure, which is then no longer pending, so that the value is free for a new
	 * claim once this release has ended. If the store fails, such a release is retried as
	 * before; any other is not, as it may not be this instance's to retry.
	 */
	CompletableFuture<Boolean> releaseByValue(LockBackend.Claim claim) {
		// Off the list before it is sent, so that no retry of it is sent after it.
		ReleaseRetries.Withdrawn pending = this.retries.withdraw(claim.key(), claim.owner());
		return releaseOnce(claim).whenComplete((released, failure) -> {
			if (failure != null && pending != null) {
				this.retries.retry(claim.on(null), pending.leaseEndNanos(), failure);
			}
		});
	}

	/**
	 * Whether a release of {@code owner}'s lock on {@code key} is still to be sent:
	 * retried after a store failure, or put off to the end of a minimum hold.
	 */
	boolean releasePending(String key, String owner) {
		return this.retries.pending(key, owner);
	}

	/**
	 * Refuses a claim with the owner value of a lock whose release is still to be sent:
	 * the store could take the new claim for the old one, whose release would then end
	 * it.
	 * @throws IllegalArgumentException if a release of {@code owner}'s lock on
	 * {@code key} is pending
	 */
	void refuseWhileAReleaseIsPending(String key, String owner) {
		if (releasePending(key, owner)) {
			throw new IllegalArgumentException("A release of lock '" + key + "' in " + name()
					+ " with this owner value (lockValue) is still to be sent: the lock is kept in the store for its "
					+ "minimum hold, or its release is retried after a store failure, and a claim with the same value "
					+ "now would be ended by that release. Give each claim its own value (a UUID), or none: the "
					+ "starter then makes one.");
		}
	}

	/** Whether the lock of {@code claim} can be handed over to another claim. */
	boolean handsOver(LockBackend.Claim claim) {
		return this.backend instanceof HandOverLockBackend
				&& (claim.kind().type() == LockKind.Type.EXCLUSIVE || claim.kind().type() == LockKind.Type.FAIR);
	}

	/**
	 * What {@code next} gets without waiting for the release of {@code holder}, if the
	 * store keeps the key held across it (see
	 * {@link HandOverLockBackend#admittedByRelease}); {@code null} otherwise, and always
	 * for a store with leases.
	 */
	@Nullable AcquireResult admittedByRelease(LockBackend.Claim holder, LockBackend.Claim next) {
		return (this.backend instanceof SessionLockBackend)
				? ((HandOverLockBackend) this.backend).admittedByRelease(holder, next) : null;
	}

	/**
	 * Hands the lock of {@code holder} to {@code next}; when the store fails, the
	 * holder's release is retried in the background until {@code holderLeaseEndNanos}, as
	 * after a failed {@link #release release}, and the stage completes exceptionally at
	 * once. The holder's release and the next claim's give-back are both owner-checked,
	 * so they are safe whether or not the store applied the hand-over. The wait for the
	 * releases the next claim must send first ends at its caller's deadline, as its
	 * attempt's does: the hand-over is then not sent and fails with
	 * {@link AttemptNotSent}, and the holder's release is its caller's to send.
	 */
	CompletableFuture<HandOverLockBackend.HandOver> handOver(LockBackend.Claim holder, LockBackend.Claim next,
			Duration lease, @Nullable Long holderLeaseEndNanos) {
		return (this.retries.anyPending()
				? afterPendingReleases(next, List.of(next), releasesBound(next, true),
						() -> handOverOnce(holder, next, lease), (answer) -> answer.next().acquired())
				: handOverOnce(holder, next, lease))
			.whenComplete((handedOver, failure) -> {
				if (failure != null && !(unwrap(failure) instanceof AttemptNotSent)) {
					this.retries.retry(holder.on(null), holderLeaseEndNanos, failure);
				}
			});
	}

	private CompletableFuture<HandOverLockBackend.HandOver> handOverOnce(LockBackend.Claim holder,
			LockBackend.Claim next, Duration lease) {
		HandOverLockBackend handOver = (HandOverLockBackend) this.backend;
		return call(holder.key(), "hand over",
				() -> handOver.handOver(CallerRuns.forStore(holder), CallerRuns.forStore(next), storable(lease)));
	}

	/**
	 * Releases the lock after {@code delayNanos}: the end of the minimum hold of a lock
	 * in a store without leases. Until then it is one of the releases to retry, so that
	 * the shutdown of the lock service sends it at once (the session that holds the lock
	 * ends then anyway), and a failed attempt is retried like any release.
	 */
	void releaseLater(LockBackend.Claim claim, long delayNanos) {
		this.retries.releaseLater(claim.on(null), delayNanos);
	}

	/**
	 * Runs {@code task} after {@code delayNanos} on the engine's scheduler.
	 * @return the scheduled task, for a caller that may no longer need it
	 */
	ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		return this.scheduler.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
	}

	/**
	 * {@link #expire(CompletableFuture, Deadline, Throwable)}, ended at the deadline by
	 * {@code callerExecutor} too when it is the thread of a caller that waits for
	 * {@code future} anyway: a busy scheduler would end it late, or, while the caller's
	 * wait holds up what the scheduler waits for, not at all.
	 */
	<T> void expire(CompletableFuture<T> future, Deadline deadline, Throwable timeout,
			@Nullable Executor callerExecutor) {
		expire(future, deadline, timeout);
		CallerRuns.alsoEndAt(callerExecutor, deadline, future, () -> future.completeExceptionally(timeout));
	}

	/**
	 * Completes {@code future} with {@code timeout} at {@code deadline}, if not before.
	 */
	<T> void expire(CompletableFuture<T> future, Deadline deadline, Throwable timeout) {
		if (future.isDone()) {
			return;
		}
		try {
			var expiry = this.scheduler.schedule(() -> future.completeExceptionally(timeout), deadline.remainingNanos(),
					TimeUnit.NANOSECONDS);
			future.whenComplete((result, failure) -> expiry.cancel(false));
		}
		catch (RejectedExecutionException ex) {
			future.completeExceptionally(timeout);
		}
	}

	/**
	 * Runs one store call, turning any failure into a {@link DistributeLockException}
	 * that names the key and the backend. An {@link Error} the backend throws (a class of
	 * an optional library missing, a stack overflow) fails the call as a failed stage
	 * would: thrown through, it skipped the code that ends the key's local hold, and the
	 * shutdown then waited for that hold for ever.
	 */
	private <T> CompletableFuture<T> call(String key, String operation, Supplier<CompletionStage<T>> storeCall) {
		try {
			return named(key, operation, storeCall.get().toCompletableFuture());
		}
		catch (RuntimeException | Error ex) {
			return CompletableFuture.failedFuture(failure(key, operation, ex));
		}
	}

	private <T> CompletableFuture<T> named(String key, String operation, CompletableFuture<T> stage) {
		CompletableFuture<T> named = new CompletableFuture<>();
		stage.whenComplete((result, failure) -> {
			if (failure != null && !named.isDone()) {
				named.completeExceptionally(failure(key, operation, failure));
			}
			else {
				named.complete(result);
			}
		});
		return named;
	}

	DistributeLockException failure(String key, String operation, Throwable failure) {
		Throwable cause = unwrap(failure);
		if (cause instanceof DistributeLockException named) {
			return named;
		}
		return new DistributeLockException(
				"Could not " + operation + " lock '" + key + "' in " + name() + ": " + cause.getMessage(), key, name(),
				cause);
	}

	/**
	 * Whether a failure is an answer rather than a failure of the store, so that trying
	 * again until the deadline cannot help: an input the store cannot hold, a kind the
	 * backend does not implement, a key held as another kind.
	 */
	static boolean isPermanent(Throwable failure) {
		Throwable cause = unwrap(failure);
		return cause instanceof LockKindConflictException || cause.getCause() instanceof IllegalArgumentException
				|| cause.getCause() instanceof UnsupportedOperationException
				|| cause.getCause() instanceof StoreClientNotStartedException;
	}

	/** The failure of a stage as the caller should see it. */
	static RuntimeException asUnchecked(Throwable failure) {
		Throwable cause = unwrap(failure);
		if (cause instanceof RuntimeException unchecked) {
			return unchecked;
		}
		if (cause instanceof Error error) {
			throw error;
		}
		return new IllegalStateException(cause.getMessage(), cause);
	}

	static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/**
	 * Whether the calling thread is the one the store's client delivers its answers on,
	 * where waiting for an answer would wait for ever.
	 */
	boolean deliversAnswersOnThisThread() {
		return this.backend instanceof StoreClientThreads threads && threads.deliversAnswersOn(Thread.currentThread());
	}

	/**
	 * Refuses a blocking acquisition on the thread the store's client answers on: it
	 * would park that thread for ever, and with it every call of the client.
	 */
	void refuseBlockingOnItsAnswerThread(String key) {
		if (deliversAnswersOnThisThread()) {
			throw new IllegalStateException("Could not acquire lock '" + key + "' in " + name() + ": the call blocks "
					+ "on " + Thread.currentThread().getName() + ", the thread that delivers the store's answers, "
					+ "so it would wait for ever. Use tryAcquireAsync (or a @Lockable method that returns a "
					+ "CompletableFuture or a Mono), or hand the work to another thread.");
		}
	}

	/**
	 * Makes one last attempt for each release still retried, and waits for them until
	 * {@code deadline}.
	 */
	void drainRetries(Deadline deadline) {
		this.retries.drain(deadline);
	}

	/**
	 * A wait ended from outside: a {@link CancellationException} as its cause, so that it
	 * reads as a cancel; a {@link CompletionException} itself, so that the stages
	 * depending on the wait pass it on instead of wrapping it in a new one each.
	 */
	private static final class WaitEnded extends CompletionException {

		private static final long serialVersionUID = 1L;

		WaitEnded() {
			super("The wait was ended", new StacklessCancellation());
		}

		@Override
		public Throwable fillInStackTrace() {
			return this;
		}

	}

	private static final class StacklessCancellation extends CancellationException {

		private static final long serialVersionUID = 1L;

		StacklessCancellation() {
			super("The wait was ended");
		}

		@Override
		public Throwable fillInStackTrace() {
			return this;
		}

	}

}
