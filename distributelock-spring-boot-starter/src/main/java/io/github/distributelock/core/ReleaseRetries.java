package io.github.distributelock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Releases that failed for a store error, retried in the background, and releases put off
 * to the end of a minimum hold.
 * <p>
 * A release that hits a dying master, a reset connection or a timeout would otherwise
 * leave the lock in the store for its whole lease while every other instance waits for
 * it. The caller hears of the failure once and is not held up: the retries run on the
 * engine's scheduler with a pause that doubles from 50 ms to 2 s, until the store answers
 * or the lease would have ended anyway (a {@link SessionLockBackend}: until the store
 * answers or the lock service closes).
 * <p>
 * A retry is kept when the store reports its session lost: the store tells of the loss on
 * its own thread, possibly after a lock was taken on the new session and its release
 * failed, and dropping every retry then would leave that lock held as long as the new
 * session lives. A retry of a lock the old session held finds it gone (every release
 * checks the owner) and ends at the store's first answer.
 */
final class ReleaseRetries {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	private static final long FIRST_RETRY_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private static final long LONGEST_RETRY_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(2);

	/** A release taken over with no send under way: it is sent then. */
	private static final Throwable NOT_SENT = new IllegalStateException("not sent yet");

	private final String backend;

	private final Function<LockBackend.Claim, CompletableFuture<Boolean>> releaseOnce;

	private final ScheduledExecutorService scheduler;

	private final Set<ReleaseRetry> retries = ConcurrentHashMap.newKeySet();

	ReleaseRetries(String backend, Function<LockBackend.Claim, CompletableFuture<Boolean>> releaseOnce,
			ScheduledExecutorService scheduler) {
		this.backend = backend;
		this.releaseOnce = releaseOnce;
		this.scheduler = scheduler;
	}

	/**
	 * Retries the release of {@code claim} until it succeeds or {@code leaseEndNanos},
	 * telling of the failure once.
	 * @param leaseEndNanos when the lease ends on {@link System#nanoTime()}, or
	 * {@code null} for a store without leases
	 */
	void retry(LockBackend.Claim claim, @Nullable Long leaseEndNanos, Throwable failure) {
		retry(new ReleaseRetry(claim, leaseEndNanos), failure);
	}

	/**
	 * Releases the lock after {@code delayNanos}: the end of the minimum hold of a lock
	 * in a store without leases. Until then it is one of the releases to retry, so that
	 * the shutdown of the lock service sends it at once (the session that holds the lock
	 * ends then anyway), and a failed attempt is retried like any release.
	 */
	void releaseLater(LockBackend.Claim claim, long delayNanos) {
		ReleaseRetry release = new ReleaseRetry(claim, null);
		release.delayed = true;
		this.retries.add(release);
		try {
			this.scheduler.schedule(() -> retryOnce(release), delayNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// The lock service is closing: release now rather than never.
			retryOnce(release);
		}
	}

	/**
	 * Sends a release now, listed from the start among the releases that a claim of the
	 * same key and owner takes over and sends before its attempt, unless {@code claimed},
	 * asked once it is listed, says that such a claim is under way already. A failed send
	 * is retried as after {@link #retry}.
	 * @return the store's answer; {@code false} when not sent, or sent by the claim that
	 * took it over
	 */
	CompletableFuture<Boolean> releaseUnless(LockBackend.Claim claim, @Nullable Long leaseEndNanos,
			BooleanSupplier claimed) {
		ReleaseRetry release = new ReleaseRetry(claim, leaseEndNanos);
		release.immediate = true;
		this.retries.add(release);
		if (claimed.getAsBoolean()) {
			// Taken over meanwhile, it is sent before the claim's attempt: harmless.
			this.retries.remove(release);
			return CompletableFuture.completedFuture(false);
		}
		return send(release).exceptionallyCompose((failure) -> (failure == NOT_SENT)
				? CompletableFuture.completedFuture(false) : CompletableFuture.failedFuture(failure));
	}

	private void retry(ReleaseRetry retry, Throwable failure) {
		String until = (retry.leaseEndNanos != null)
				? " or its lease runs out in "
						+ Math.max(0, TimeUnit.NANOSECONDS.toMillis(retry.leaseEndNanos - System.nanoTime())) + " ms"
				: "";
		logger.warn("Could not release lock '" + retry.claim.key() + "' in " + this.backend + " ("
				+ StoreCalls.unwrap(failure).getMessage() + "); retrying in the background until it is released"
				+ until);
		this.retries.add(retry);
		scheduleRetry(retry);
	}

	private void scheduleRetry(ReleaseRetry retry) {
		try {
			this.scheduler.schedule(() -> retryOnce(retry), retry.pauseNanos, TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// The lock service is closing: drainRetries() makes the last attempt.
			logger.debug("Not retrying the release of lock '" + retry.claim.key() + "': the lock service is closing");
		}
	}

	private void retryOnce(ReleaseRetry retry) {
		if (!this.retries.contains(retry)) {
			return;
		}
		if (retry.leaseEndNanos != null && System.nanoTime() - retry.leaseEndNanos >= 0) {
			this.retries.remove(retry);
			logger.info("Gave up releasing lock '" + retry.claim.key() + "' in " + this.backend
					+ ": its lease has run out, so the store has freed it");
			return;
		}
		send(retry);
	}

	/**
	 * Sends the release, noting the send under way for {@link #takeOver}, which must not
	 * send its own before that one has been answered.
	 */
	private CompletableFuture<Boolean> send(ReleaseRetry retry) {
		CompletableFuture<Boolean> answer = new CompletableFuture<>();
		CompletableFuture<Boolean> underWay = retry.sending.compareAndExchange(null, answer);
		if (underWay != null) {
			return underWay;
		}
		if (!this.retries.contains(retry)) {
			// Taken over meanwhile: the taker, which may have seen this send as under
			// way,
			// sends it itself when this one ends unsent.
			retry.sending.set(null);
			answer.completeExceptionally(NOT_SENT);
			return answer;
		}
		retry.attempts++;
		this.releaseOnce.apply(retry.claim).whenComplete((released, failure) -> {
			if (failure == null) {
				this.retries.remove(retry);
				logReleased(retry, released);
			}
			else {
				if (retry.immediate) {
					retry.immediate = false;
					logger.warn("Could not release lock '" + retry.claim.key() + "' in " + this.backend + " ("
							+ StoreCalls.unwrap(failure).getMessage()
							+ "); retrying in the background until it is released");
				}
				else if (logger.isDebugEnabled()) {
					logger.debug("Retry " + retry.attempts + " to release lock '" + retry.claim.key() + "' in "
							+ this.backend + " failed: " + failure.getMessage());
				}
				retry.pauseNanos = Math.min(retry.pauseNanos * 2, LONGEST_RETRY_PAUSE_NANOS);
				scheduleRetry(retry);
			}
			retry.sending.set(null);
			if (failure == null) {
				answer.complete(released);
			}
			else {
				answer.completeExceptionally(failure);
			}
		});
		return answer;
	}

	private void logReleased(ReleaseRetry retry, boolean released) {
		if (retry.immediate) {
			return;
		}
		if (retry.delayed && retry.attempts == 1) {
			if (logger.isDebugEnabled()) {
				logger.debug("Released lock '" + retry.claim.key() + "' in " + this.backend
						+ " at the end of its minimum hold"
						+ ((released) ? "" : " (it was no longer held by this owner)"));
			}
		}
		else {
			logger.info("Released lock '" + retry.claim.key() + "' in " + this.backend + " at retry " + retry.attempts
					+ ((released) ? "" : " (it was no longer held by this owner)"));
		}
	}

	/** Whether any release is still to be sent: the attempts' fast path asks first. */
	boolean anyPending() {
		return !this.retries.isEmpty();
	}

	/**
	 * Takes over the releases of {@code owner}'s lock on {@code key} still to be sent,
	 * for a claim of that key and owner about to reach the store: sent after that claim,
	 * such a release would end the lock the claim takes (every release checks only the
	 * owner). Each is off the list at once, so the scheduler sends it no more; a send
	 * under way is awaited, and one that failed is sent once more.
	 * @return {@code null} if none was pending; otherwise the releases taken over,
	 * completed once each has been answered, never exceptionally
	 */
	@Nullable CompletableFuture<List<TakenOver>> takeOver(String key, String owner) {
		List<CompletableFuture<TakenOver>> sends = null;
		for (ReleaseRetry retry : this.retries) {
			if (retry.claim.key().equals(key) && retry.claim.owner().equals(owner) && this.retries.remove(retry)) {
				CompletableFuture<Boolean> underWay = retry.sending.get();
				CompletableFuture<@Nullable Throwable> lastSend = (underWay != null)
						? underWay.handle((released, failure) -> failure) : CompletableFuture.completedFuture(NOT_SENT);
				CompletableFuture<TakenOver> sent = lastSend
					.thenCompose((failure) -> (failure == null) ? CompletableFuture.completedFuture(null)
							: this.releaseOnce.apply(retry.claim).handle((released, again) -> again))
					.thenApply((failure) -> new TakenOver(retry.claim, retry.leaseEndNanos, failure));
				if (sends == null) {
					sends = new ArrayList<>(1);
				}
				sends.add(sent);
			}
		}
		if (sends == null) {
			return null;
		}
		List<CompletableFuture<TakenOver>> all = sends;
		return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
			.thenApply((answered) -> all.stream().map(CompletableFuture::join).toList());
	}

	/**
	 * Puts back a release taken over whose store call failed, for a claim that did not
	 * take the key: the lock it ends may still be in the store.
	 */
	void putBack(TakenOver release) {
		if (release.failure() != null) {
			retry(new ReleaseRetry(release.claim(), release.leaseEndNanos()), release.failure());
		}
	}

	/**
	 * A release taken over by a claim of its key and owner.
	 *
	 * @param claim the released claim
	 * @param leaseEndNanos until when to retry it, or {@code null} for a store without
	 * leases
	 * @param failure why its last send failed, or {@code null} if the store answered
	 */
	record TakenOver(LockBackend.Claim claim, @Nullable Long leaseEndNanos, @Nullable Throwable failure) {
	}

	/**
	 * Whether a release of {@code owner}'s lock on {@code key} is retried or put off to
	 * the end of a minimum hold.
	 */
	boolean pending(String key, String owner) {
		for (ReleaseRetry retry : this.retries) {
			// Not one sent at once (releaseUnless): its claim waits for it instead.
			if (!retry.immediate && retry.claim.key().equals(key) && retry.claim.owner().equals(owner)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Takes off the list the releases of {@code owner}'s lock on {@code key} that are
	 * retried or put off, for a caller that sends that release now.
	 * @return what was withdrawn, or {@code null} if none was pending
	 */
	@Nullable Withdrawn withdraw(String key, String owner) {
		Withdrawn withdrawn = null;
		for (ReleaseRetry retry : this.retries) {
			if (retry.claim.key().equals(key) && retry.claim.owner().equals(owner) && this.retries.remove(retry)) {
				withdrawn = new Withdrawn(retry.leaseEndNanos);
			}
		}
		return withdrawn;
	}

	/**
	 * A pending release that a caller took over.
	 *
	 * @param leaseEndNanos until when to retry it if the caller's attempt fails, or
	 * {@code null} for a store without leases
	 */
	record Withdrawn(@Nullable Long leaseEndNanos) {
	}

	/**
	 * Makes one last attempt for each release still retried, all sent at once, and waits
	 * for them until {@code deadline}.
	 */
	void drain(Deadline deadline) {
		List<CompletableFuture<Boolean>> lastAttempts = new ArrayList<>();
		for (ReleaseRetry retry : this.retries) {
			if (this.retries.remove(retry)) {
				lastAttempts.add(lastAttempt(retry));
			}
		}
		if (!deadline.awaitUninterruptibly(CompletableFuture.allOf(lastAttempts.toArray(CompletableFuture[]::new)))) {
			long unanswered = lastAttempts.stream().filter((attempt) -> !attempt.isDone()).count();
			logger.warn("The last attempts to release " + unanswered + " locks in " + this.backend
					+ " at shutdown were not answered in time; the store frees them when their lease or session ends");
		}
	}

	private CompletableFuture<Boolean> lastAttempt(ReleaseRetry retry) {
		try {
			return this.releaseOnce.apply(retry.claim).whenComplete((released, failure) -> {
				if (failure != null) {
					logger.warn(
							"Could not release lock '" + retry.claim.key() + "' in " + this.backend
									+ " at shutdown; the store frees it when its lease or session ends",
							StoreCalls.unwrap(failure));
				}
			});
		}
		catch (RuntimeException ex) {
			logger.warn("Could not release lock '" + retry.claim.key() + "' in " + this.backend
					+ " at shutdown; the store frees it when its lease or session ends", ex);
			return CompletableFuture.failedFuture(ex);
		}
	}

	private static final class ReleaseRetry {

		final LockBackend.Claim claim;

		final @Nullable Long leaseEndNanos;

		long pauseNanos = FIRST_RETRY_PAUSE_NANOS;

		int attempts;

		/**
		 * Whether it is the release at the end of a minimum hold, not after a failure.
		 */
		boolean delayed;

		/**
		 * Whether it is sent at once ({@link #releaseUnless}) and has not failed yet.
		 */
		volatile boolean immediate;

		/** The release under way, if any. */
		final AtomicReference<@Nullable CompletableFuture<Boolean>> sending = new AtomicReference<>();

		ReleaseRetry(LockBackend.Claim claim, @Nullable Long leaseEndNanos) {
			this.claim = claim;
			this.leaseEndNanos = leaseEndNanos;
		}

	}

}
