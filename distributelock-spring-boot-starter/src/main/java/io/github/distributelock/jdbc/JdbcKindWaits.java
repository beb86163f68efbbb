package io.github.distributelock.jdbc;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.jdbc.JdbcKindStatements.KeyState;
import org.jspecify.annotations.Nullable;

/**
 * The wait of a fair, read/write or permit claim between two attempts: it polls the key's
 * state ({@code state.sql}, one statement that locks nothing) until the claim's turn may
 * have come, by the same rule the attempt applies ({@link JdbcLockKinds#admits}), or the
 * deadline passes. A table has no notification, so the polls are paced by an exponential
 * back-off with jitter from 5 ms to 200 ms, or to 50 ms for the head of the queue, whose
 * turn comes next; a pause never runs past the holder's lease the last poll read, as a
 * plain waiter's does ({@link JdbcReleaseWaits#pauseNanos}), for permits the soonest
 * lease of the holders, when the next permit frees. A poll never finds a turn that the
 * attempt would refuse for long: the attempt runs the same rule under the key's row lock,
 * so a poll and an attempt disagree only while another operation is changing the key.
 */
final class JdbcKindWaits {

	private volatile long firstPauseNanos = TimeUnit.MILLISECONDS.toNanos(5);

	private volatile long longestPauseNanos = TimeUnit.MILLISECONDS.toNanos(200);

	private volatile long longestHeadPauseNanos = TimeUnit.MILLISECONDS.toNanos(50);

	private final JdbcLockKinds kinds;

	JdbcKindWaits(JdbcLockKinds kinds) {
		this.kinds = kinds;
	}

	/** Paces the polls for tests, the head of a queue's as every other's. */
	void pace(Duration firstPause, Duration longestPause) {
		this.firstPauseNanos = firstPause.toNanos();
		this.longestPauseNanos = longestPause.toNanos();
		this.longestHeadPauseNanos = longestPause.toNanos();
	}

	/**
	 * Completes when the claim may attempt again, or at the deadline; the engine cancels
	 * the stage to stop waiting.
	 * @param executor runs the polls: the caller's thread when it blocks anyway, else the
	 * backend's pool
	 */
	CompletionStage<Void> awaitTurn(Claim claim, Deadline deadline, Executor executor) {
		CompletableFuture<Void> turn = new CompletableFuture<>();
		// The attempt just refused the claim: pause before the first poll, so that a poll
		// and an attempt never follow each other without one.
		schedule(claim, deadline, executor, this.firstPauseNanos, null, turn);
		return turn;
	}

	/**
	 * Polls after a pause, which ends at the latest when the lease the last poll read
	 * ends (for permits, the first of the holders' to end), as a plain waiter's does.
	 */
	private void schedule(Claim claim, Deadline deadline, Executor executor, long pause, @Nullable Long leaseMillis,
			CompletableFuture<Void> turn) {
		CompletableFuture
			.delayedExecutor(JdbcReleaseWaits.pauseNanos(pause, deadline, leaseMillis), TimeUnit.NANOSECONDS,
					JdbcReleaseWaits.endingOnRefusal(executor, claim, turn))
			.execute(() -> poll(claim, deadline, executor, pause, turn));
	}

	private void poll(Claim claim, Deadline deadline, Executor executor, long pause, CompletableFuture<Void> turn) {
		if (turn.isDone()) {
			return;
		}
		if (deadline.hasPassed()) {
			turn.complete(null);
			return;
		}
		KeyState state;
		try {
			state = this.kinds.state(claim);
		}
		catch (RuntimeException ex) {
			turn.completeExceptionally(ex);
			return;
		}
		if (JdbcLockKinds.admits(claim.kind(), state) || !JdbcKindMarkers.sameFamily(claim.kind(), state.holder())) {
			// The attempt takes the key, or reports the conflict.
			turn.complete(null);
			return;
		}
		long longest = (state.arrival() != null && state.ahead() == 0) ? this.longestHeadPauseNanos
				: this.longestPauseNanos;
		schedule(claim, deadline, executor, Math.min(pause * 2, longest), state.untilFreeMillis(claim.kind()), turn);
	}

}
