package io.github.distributelock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.distributelock.core.AcquireResult;
import io.github.distributelock.core.Deadline;
import io.github.distributelock.core.LockBackend.Claim;
import io.github.distributelock.core.MultiKeyAcquireResult;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * Bounds the attempts whose claim has a deadline by it while the client is not connected.
 * Curator sends a create only once the client is connected, waiting up to its connection
 * timeout (seconds to tens of seconds) for each try, so an attempt made during an outage
 * answered that long after its caller's deadline. Here it answers at the deadline with a
 * connection loss, which the engine treats as any store failure at the deadline; an
 * attempt whose deadline has passed while the client is not connected is not sent at all.
 * A client that has never been connected is starting up: its attempts wait for its first
 * connection, as before.
 * <p>
 * A server that is hung but connected (it keeps the connection open and never answers)
 * leaves the client calling itself connected until it has heard nothing for two thirds of
 * the session timeout (40 s with a session of a minute): an attempt not answered by its
 * deadline plus the client's connection timeout, the longest the client is configured to
 * wait for the server to be reachable, answers then with an operation timeout, whatever
 * the client believes of its connection.
 * <p>
 * A request that lost its connection may still be sent once the client is connected again
 * on the same session, and its node lives as long as that session: held by nobody, it
 * would keep every other instance out. So once an abandoned attempt answers late, what it
 * may have left is released (a plain attempt, or a transaction, that took nothing left
 * nothing). Releases are owner-checked, so this is safe whatever the engine's own
 * give-back release did meanwhile.
 * <p>
 * While the client is connected, an attempt costs an entry in a set, one more future and
 * an entry in the session's list of deadlines, which sets a timer only when it comes
 * before every other (the connection timeout after the deadline: rarely); a timer for the
 * deadline itself is set only for the attempts in flight when the connection drops, or
 * sent while it is down.
 */
final class ZooKeeperAttemptDeadlines implements ConnectionStateListener {

	private static final Log logger = LogFactory.getLog(ZooKeeperAttemptDeadlines.class);

	private final ZooKeeperSession session;

	private final Function<Claim, CompletableFuture<Boolean>> release;

	private final Function<List<Claim>, CompletableFuture<List<Boolean>>> releaseAll;

	private final Set<Bounded<?>> inFlight = ConcurrentHashMap.newKeySet();

	/**
	 * Whether the client has been connected: until then it is starting, and its first
	 * connection is part of the first round trip, which a call with no wait time at
	 * startup waited for, and must still.
	 */
	private volatile boolean connectedOnce;

	/**
	 * @param session the client's session
	 * @param release releases what an attempt of the claim took or queued
	 * @param releaseAll releases what a multi-key attempt of the claims took
	 */
	ZooKeeperAttemptDeadlines(ZooKeeperSession session, Function<Claim, CompletableFuture<Boolean>> release,
			Function<List<Claim>, CompletableFuture<List<Boolean>>> releaseAll) {
		this.session = session;
		this.release = release;
		this.releaseAll = releaseAll;
		// Connected before this backend listened to the client. Not told by a session id,
		// as below; a backend made during an outage waits as at startup until connected.
		this.connectedOnce = session.isConnected();
	}

	/**
	 * Runs {@code attempt} of {@code claim}, answering by the claim's deadline (if it has
	 * one) while the client is not connected.
	 */
	CompletableFuture<AcquireResult> bound(Claim claim, Supplier<CompletableFuture<AcquireResult>> attempt) {
		return bound(claim.deadline(), List.of(claim), attempt,
				(result, failure) -> answeredLate(claim, result, failure));
	}

	/**
	 * Runs {@code attempt} of every claim in one transaction, answering by the claims'
	 * deadline (the caller's, the same for each) while the client is not connected.
	 */
	CompletableFuture<MultiKeyAcquireResult> boundAll(List<Claim> claims,
			Supplier<CompletableFuture<MultiKeyAcquireResult>> attempt) {
		return bound(claims.get(0).deadline(), claims, attempt,
				(result, failure) -> answeredLate(claims, result, failure));
	}

	private <T> CompletableFuture<T> bound(@Nullable Deadline deadline, List<Claim> claims,
			Supplier<CompletableFuture<T>> attempt, BiConsumer<@Nullable T, @Nullable Throwable> late) {
		if (deadline == null || startingUp()) {
			return attempt.get();
		}
		if (!this.session.isConnected() && deadline.hasPassed()) {
			// It could not be answered in time: not sent, nothing to take back. A client
			// connected meanwhile only costs the caller an attempt its time was up for.
			return CompletableFuture.failedFuture(connectionLoss(claims));
		}
		Bounded<T> bounded = new Bounded<>(claims, deadline);
		// Listed before the look at the connection: a drop after the look finds it.
		this.inFlight.add(bounded);
		bounded.outcome.whenComplete((result, failure) -> this.inFlight.remove(bounded));
		CompletableFuture<T> answer;
		try {
			answer = attempt.get();
		}
		catch (RuntimeException | Error ex) {
			this.inFlight.remove(bounded);
			throw ex;
		}
		answer.whenComplete((result, failure) -> {
			if (!bounded.answer(result, failure)) {
				late.accept(result, failure);
			}
		});
		if (!this.session.isConnected()) {
			bounded.arm();
		}
		bounded.bindUnanswered();
		return bounded.outcome;
	}

	/** Arms the attempts in flight when the connection drops or the session ends. */
	@Override
	public void stateChanged(CuratorFramework client, ConnectionState newState) {
		if (newState.isConnected()) {
			this.connectedOnce = true;
		}
		else {
			this.inFlight.forEach(Bounded::arm);
		}
	}

	/**
	 * Whether the client has never been connected yet. Not told by a session id: the
	 * handle has one as soon as the server answers, before the client calls itself
	 * connected, and an attempt with no wait time sent then was refused.
	 */
	private boolean startingUp() {
		if (this.connectedOnce) {
			return false;
		}
		if (this.session.isConnected()) {
			this.connectedOnce = true;
			return false;
		}
		return true;
	}

	/**
	 * Releases what an attempt answered at its deadline may have left: its request went
	 * on without it.
	 */
	private void answeredLate(Claim claim, @Nullable AcquireResult result, @Nullable Throwable failure) {
		if (failure == null && result != null && !result.acquired() && ZooKeeperPlainLocks.plain(claim)) {
			// A plain attempt refused: it left nothing.
			return;
		}
		this.release.apply(claim)
			.whenComplete((released, releaseFailure) -> logRelease(claim.key(), releaseFailure,
					Boolean.TRUE.equals(released)));
	}

	/**
	 * Releases what a multi-key attempt answered at its deadline may have left: its
	 * transaction went on without it.
	 */
	private void answeredLate(List<Claim> claims, @Nullable MultiKeyAcquireResult result, @Nullable Throwable failure) {
		if (failure == null && result != null && !result.acquired()) {
			// A transaction refused: it created nothing.
			return;
		}
		this.releaseAll.apply(claims)
			.whenComplete((released, releaseFailure) -> logRelease(keys(claims), releaseFailure,
					released != null && released.contains(Boolean.TRUE)));
	}

	private static void logRelease(String key, @Nullable Throwable releaseFailure, boolean released) {
		if (releaseFailure != null) {
			logger.warn("Could not release lock '" + key + "' that an attempt answered at its deadline "
					+ "during a disconnection took or queued for once the client was connected again; it is "
					+ "held until the client's session ends", releaseFailure);
		}
		else if (released && logger.isDebugEnabled()) {
			logger.debug("Released lock '" + key + "', taken or queued for by an attempt that went on "
					+ "after it was answered at its deadline during a disconnection");
		}
	}

	private static KeeperException connectionLoss(List<Claim> claims) {
		return KeeperException.create(KeeperException.Code.CONNECTIONLOSS, keys(claims));
	}

	private static KeeperException unanswered(List<Claim> claims) {
		return KeeperException.create(KeeperException.Code.OPERATIONTIMEOUT, keys(claims));
	}

	/** The keys joined by commas, as a multi-key request names them. */
	private static String keys(List<Claim> claims) {
		return (claims.size() == 1) ? claims.get(0).key() : String.join(",", claims.stream().map(Claim::key).toList());
	}

	/**
	 * One attempt with a deadline in flight, of one claim or of several in one
	 * transaction.
	 */
	private final class Bounded<T> {

		private final List<Claim> claims;

		private final Deadline deadline;

		/** What the engine hears: the attempt's answer, or a connection loss. */
		final CompletableFuture<T> outcome = new CompletableFuture<>();

		/** Whether a timer for the deadline is set. */
		private final AtomicBoolean armed = new AtomicBoolean();

		Bounded(List<Claim> claims, Deadline deadline) {
			this.claims = claims;
			this.deadline = deadline;
		}

		/**
		 * Passes the attempt's answer on.
		 * @return whether it was in time
		 */
		boolean answer(@Nullable T result, @Nullable Throwable failure) {
			return (failure != null) ? this.outcome.completeExceptionally(failure) : this.outcome.complete(result);
		}

		/**
		 * Sets a timer for the deadline, which ends the attempt then unless the client is
		 * connected again: a request on a live connection answers within a round trip.
		 */
		void arm() {
			if (this.outcome.isDone() || !this.armed.compareAndSet(false, true)) {
				return;
			}
			CompletableFuture<Void> due = new CompletableFuture<>();
			// On the session's timer thread, never the client's event thread.
			due.thenRun(this::due);
			ZooKeeperAttemptDeadlines.this.session.deadlines().expireAt(due, this.deadline);
			// Its entry goes as soon as the attempt answers.
			this.outcome.whenComplete((result, failure) -> due.cancel(false));
		}

		/**
		 * Sets a deadline the client's connection timeout after the claim's (counted from
		 * now if that has passed), which ends the attempt then whether the client calls
		 * itself connected or not: a hung server answers nothing, and the client hears of
		 * it only after two thirds of its session timeout.
		 */
		void bindUnanswered() {
			if (this.outcome.isDone()) {
				return;
			}
			Duration connectionTimeout = Duration.ofMillis(
					ZooKeeperAttemptDeadlines.this.session.client().getZookeeperClient().getConnectionTimeoutMs());
			Deadline unansweredAt = Deadline.after(this.deadline.remaining().plus(connectionTimeout));
			CompletableFuture<Void> due = new CompletableFuture<>();
			// On the session's timer thread, never the client's event thread. Not when
			// the backend closes, which ends every wait early.
			due.thenRun(() -> {
				if (unansweredAt.hasPassed()) {
					this.outcome.completeExceptionally(unanswered(this.claims));
				}
			});
			ZooKeeperAttemptDeadlines.this.session.deadlines().expireAt(due, unansweredAt);
			this.outcome.whenComplete((result, failure) -> due.cancel(false));
		}

		private void due() {
			// Before the look: a drop after it arms again.
			this.armed.set(false);
			if (!ZooKeeperAttemptDeadlines.this.session.isConnected()) {
				this.outcome.completeExceptionally(connectionLoss(this.claims));
			}
		}

	}

}
