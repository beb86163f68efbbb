package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * How a waiter of the JDBC backend learns that a key may be free: woken by a PostgreSQL
 * notification while the backend's {@link PostgresReleaseListener} listens, and otherwise
 * by polling the row with exponential back-off and jitter (a table has no release
 * notification). A notified wait still reads the row every {@link #checkEveryNanos}, so
 * that a release by an instance that does not notify (notifications off, or an earlier
 * version) is seen within that time. No thread waits between polls.
 */
final class JdbcReleaseWaits {

	private static final Log logger = LogFactory.getLog(JdbcReleaseWaits.class);

	private final JdbcLockRepository repository;

	private final Executor statements;

	private final @Nullable PostgresReleaseListener listener;

	private volatile long firstPauseNanos = TimeUnit.MILLISECONDS.toNanos(5);

	private volatile long longestPauseNanos = TimeUnit.MILLISECONDS.toNanos(200);

	private volatile long checkEveryNanos = TimeUnit.SECONDS.toNanos(1);

	JdbcReleaseWaits(JdbcLockRepository repository, Executor statements, @Nullable PostgresReleaseListener listener) {
		this.repository = repository;
		this.statements = statements;
		this.listener = listener;
	}

	/** Paces the polls, and the checks of notified waits, for tests. */
	void pace(Duration firstPause, Duration longestPause, Duration checkEvery) {
		this.firstPauseNanos = firstPause.toNanos();
		this.longestPauseNanos = longestPause.toNanos();
		this.checkEveryNanos = checkEvery.toNanos();
	}

	@Nullable PostgresReleaseListener listener() {
		return this.listener;
	}

	/** What an attempt records before it runs, for the wait that may follow it. */
	@Nullable Object hint() {
		return (this.listener != null) ? this.listener.generation() : null;
	}

	CompletableFuture<Void> await(Claim claim, AcquireResult lastAttempt, Deadline deadline) {
		CompletableFuture<Void> released = new CompletableFuture<>();
		PostgresReleaseListener listening = this.listener;
		if (listening != null && lastAttempt.hint() instanceof Long since && listening.listening()) {
			awaitNotification(listening, claim, since, deadline, released);
		}
		else {
			poll(claim, deadline, this.firstPauseNanos, released);
		}
		return released;
	}

	private void awaitNotification(PostgresReleaseListener listening, Claim claim, long since, Deadline deadline,
			CompletableFuture<Void> released) {
		Executor executor = guarded(claim, released);
		// Run off the listener's thread, which only receives.
		Runnable wake = () -> executor.execute(() -> released.complete(null));
		if (!listening.register(claim.key(), since, wake)) {
			wake.run();
			return;
		}
		released.whenComplete((done, failure) -> listening.unregister(claim.key(), wake));
		check(claim, deadline, released, Long.MAX_VALUE);
	}

	/**
	 * Reads the row at the deadline, or sooner every {@link #checkEveryNanos}, while the
	 * notification has not come; and when the lease it read last ends, as a lease cut to
	 * the rest of a minimum hold ends without a release that would notify.
	 */
	private void check(Claim claim, Deadline deadline, CompletableFuture<Void> released, long leaseNanos) {
		long pause = Math.min(Math.min(this.checkEveryNanos, deadline.remainingNanos()), leaseNanos);
		CompletableFuture.delayedExecutor(pause, TimeUnit.NANOSECONDS, guarded(claim, released)).execute(() -> {
			if (released.isDone()) {
				return;
			}
			if (deadline.hasPassed()) {
				released.complete(null);
				return;
			}
			leaseLeft(claim, released).whenComplete((remaining, failure) -> {
				if (failure != null) {
					released.completeExceptionally(failure);
				}
				else if (remaining == null || remaining <= 0) {
					released.complete(null);
				}
				else {
					// A millisecond more, so that the database has ended the lease.
					check(claim, deadline, released, TimeUnit.MILLISECONDS.toNanos(remaining + 1));
				}
			});
		});
	}

	private void poll(Claim claim, Deadline deadline, long pause, CompletableFuture<Void> released) {
		if (released.isDone()) {
			return;
		}
		leaseLeft(claim, released).whenComplete((remaining, failure) -> {
			if (failure != null) {
				released.completeExceptionally(failure);
			}
			else if (remaining == null || remaining <= 0 || deadline.hasPassed()) {
				released.complete(null);
			}
			else {
				long next = Math.min(pause * 2, this.longestPauseNanos);
				Executor delayed = CompletableFuture.delayedExecutor(pauseNanos(pause, deadline, remaining),
						TimeUnit.NANOSECONDS, guarded(claim, released));
				delayed.execute(() -> poll(claim, deadline, next, released));
			}
		});
	}

	/**
	 * The pause of a waiter before its next poll: {@code backOffNanos} with jitter (half
	 * to all of it, so that waiters of several instances spread out), but not past the
	 * deadline, nor past the holder's lease the last poll read, plus a millisecond so
	 * that the database has ended it: a lease cut to the rest of a minimum hold ends
	 * without a release, and nothing else tells the waiter.
	 * @param leaseMillis the holder's lease the last poll read, or {@code null} if none
	 */
	static long pauseNanos(long backOffNanos, Deadline deadline, @Nullable Long leaseMillis) {
		long jittered = backOffNanos / 2 + ThreadLocalRandom.current().nextLong(backOffNanos / 2 + 1);
		long untilFree = (leaseMillis != null) ? TimeUnit.MILLISECONDS.toNanos(leaseMillis + 1) : Long.MAX_VALUE;
		return Math.min(jittered, Math.min(deadline.remainingNanos(), untilFree));
	}

	/** Reads the holder's lease for {@code wait} (a poll, or a notified wait's check). */
	private CompletableFuture<@Nullable Long> leaseLeft(Claim claim, CompletableFuture<Void> wait) {
		return CompletableFuture.supplyAsync(() -> this.repository.remainingLeaseMillis(claim.key()),
				guarded(claim, wait));
	}

	/** Where the statements of {@code wait} run: see {@link #endingOnRefusal}. */
	private Executor guarded(Claim claim, CompletableFuture<Void> wait) {
		return endingOnRefusal(executor(claim), claim, wait);
	}

	/**
	 * {@code executor}, where a task refused ends {@code wait} instead: the backend's
	 * pool refuses every task once it is closed, and a refused poll, thrown on the thread
	 * of a timer, would leave the wait open for good. The waiter's next attempt tells
	 * that the backend is closed.
	 */
	static Executor endingOnRefusal(Executor executor, Claim claim, CompletableFuture<Void> wait) {
		return (task) -> {
			try {
				executor.execute(task);
			}
			catch (RejectedExecutionException ex) {
				if (logger.isDebugEnabled()) {
					logger.debug("Ended the wait for lock '" + claim.key() + "': its statements are refused ("
							+ ex.getMessage() + "); the backend is closed");
				}
				wait.complete(null);
			}
		};
	}

	private Executor executor(Claim claim) {
		return (claim.callerExecutor() != null) ? claim.callerExecutor() : this.statements;
	}

}
