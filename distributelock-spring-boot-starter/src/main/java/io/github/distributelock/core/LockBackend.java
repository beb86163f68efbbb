package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;

/**
 * The primitives of one lock store: one attempt, renewal, release, and a wait for the key
 * to be released. {@link DefaultDistributeLock} builds everything else on them once for
 * every store: the caller's deadline, reentrancy, the watchdog, lost-lock detection,
 * retries of transient failures, metrics and logging.
 * <p>
 * Every method returns at once with a stage that the store's answer completes: a client
 * with a non-blocking API (Lettuce, ZooKeeper's) never blocks a thread; a store whose
 * client blocks (JDBC) runs its work on {@link Claim#callerExecutor()} when there is one,
 * and on a bounded pool of its own otherwise. A stage completes exceptionally when the
 * store fails; the engine retries until the caller's deadline, and reports the failure as
 * a {@link io.github.distributelock.DistributeLockException} naming the key and
 * {@link #name() the backend}. An {@link IllegalArgumentException} means the key or owner
 * cannot be stored, and a {@link StoreClientNotStartedException} that the store's client
 * was never started; neither is retried.
 * <p>
 * Keys and owners are untrusted text: implementations pass them as script arguments or
 * statement parameters, never inside script or SQL text.
 * <p>
 * Capabilities beyond these primitives are separate interfaces: a store whose locks end
 * with a session implements {@link SessionLockBackend}, and every backend implements
 * {@link LockStoreProbe} for health checks.
 *
 * @since 1.0.0
 */
public interface LockBackend {

	/**
	 * The longest lease the engine passes to a backend: a longer fixed lease (one meant
	 * as "for ever") is passed as this. Stores cannot hold every far expiry (Redis
	 * refuses one of a thousand years, H2 overflows past about 292 years, MariaDB and
	 * MySQL stop at the year 9999), and a century is as good as for ever for a lock.
	 */
	Duration LONGEST_LEASE = Duration.ofDays(36_500);

	/**
	 * The name of the backend in messages and metrics, such as {@code redis}.
	 * @return the backend name
	 */
	String name();

	/**
	 * One attempt to take the lock, without waiting.
	 * @param claim the key, the owner token, and where blocking work may run
	 * @param lease how long the store keeps the lock unless it is renewed (ignored by a
	 * {@link SessionLockBackend})
	 * @return acquired with its fencing token, or held by another owner with what the
	 * backend wants to know in {@link #awaitRelease}
	 */
	CompletionStage<AcquireResult> tryAcquire(Claim claim, Duration lease);

	/**
	 * Extends the lease of a lock this owner holds.
	 * @param claim the key and the owner token
	 * @param lease the new lease, counted from now
	 * @return {@code false} if the lock is no longer held by this owner
	 */
	CompletionStage<Boolean> renew(Claim claim, Duration lease);

	/**
	 * Releases the lock if this owner holds it, and tells the waiters of every instance.
	 * @param claim the key and the owner token, with the fencing token of the hold when
	 * the engine releases a lock it held ({@link Claim#fencingToken()})
	 * @return {@code false} if the lock was not held by this owner any more
	 */
	CompletionStage<Boolean> release(Claim claim);

	/**
	 * Completes when the store signals a release of the key, or at {@code deadline},
	 * whichever comes first; then the engine attempts again. Implementations are woken by
	 * a notification where the store has one, and complete at once if the key was
	 * released since {@code lastAttempt} (what their own {@link #tryAcquire} put in
	 * {@link AcquireResult#hint()} helps tell), so that a release between the attempt and
	 * this call is not missed. The deadline already accounts for the holder's lease: the
	 * backend only waits.
	 * @param claim the key and the owner token of the waiter
	 * @param lastAttempt the result of the attempt that found the key held
	 * @param deadline when to complete at the latest
	 * @return completes when the waiter should attempt again
	 */
	CompletionStage<Void> awaitRelease(Claim claim, AcquireResult lastAttempt, Deadline deadline);

	/**
	 * A lock in the store as one call for it sees it: the key, the owner token that must
	 * be presented to renew or release, the kind of lock, the caller's thread when it
	 * blocks anyway, and whether the owner token is unique to this acquisition.
	 *
	 * @param key the lock key as the caller gave it (the backend adds its prefixes)
	 * @param owner the owner token
	 * @param callerExecutor runs work on the thread of a caller that waits for the result
	 * anyway (the blocking API), so that a blocking store needs no thread of its own for
	 * it; {@code null} when the caller must not be blocked
	 * @param kind the kind of lock; a backend that does not implement a kind fails the
	 * call with {@link UnsupportedOperationException}
	 * @param ownerUnique whether the owner token is unique to this acquisition (the
	 * engine made it), so that a store that finds the key held by it may count the
	 * attempt as its own, for instance after its client sent the attempt again once a
	 * dropped connection was back; {@code false} for an owner the caller chose, which
	 * another caller may have chosen too
	 * @param fencingToken the fencing token the store issued for the hold this claim
	 * releases or hands over, or {@link #NO_FENCING_TOKEN} for a claim that does not hold
	 * (an attempt, a give-back): a store whose client may send a release again after a
	 * dropped connection can tell by it that the copy found the lock gone by its own
	 * first run, rather than lost
	 * @param deadline when the caller of an attempt stops waiting, so that a store which
	 * may itself wait inside an attempt (for a row lock another transaction holds, say)
	 * can bound that wait by it; {@code null} for a claim no caller waits for (a renewal,
	 * a release of a hold) and where the engine knows none
	 */
	record Claim(String key, String owner, @Nullable Executor callerExecutor, LockKind kind, boolean ownerUnique,
			long fencingToken, @Nullable Deadline deadline) {

		/**
		 * The {@link #fencingToken()} of a claim that holds no lock the engine knows of.
		 */
		public static final long NO_FENCING_TOKEN = 0;

		/**
		 * An exclusive claim whose work may not run on the caller's thread, with an owner
		 * that is not known to be unique.
		 * @param key the lock key
		 * @param owner the owner token
		 */
		public Claim(String key, String owner) {
			this(key, owner, null, LockKind.EXCLUSIVE);
		}

		/**
		 * An exclusive claim, with an owner that is not known to be unique.
		 * @param key the lock key
		 * @param owner the owner token
		 * @param callerExecutor the caller's thread when it blocks anyway, or
		 * {@code null}
		 */
		public Claim(String key, String owner, @Nullable Executor callerExecutor) {
			this(key, owner, callerExecutor, LockKind.EXCLUSIVE);
		}

		/**
		 * A claim with an owner that is not known to be unique.
		 * @param key the lock key
		 * @param owner the owner token
		 * @param callerExecutor the caller's thread when it blocks anyway, or
		 * {@code null}
		 * @param kind the kind of lock
		 */
		public Claim(String key, String owner, @Nullable Executor callerExecutor, LockKind kind) {
			this(key, owner, callerExecutor, kind, false);
		}

		/**
		 * A claim that holds no lock the engine knows of.
		 * @param key the lock key
		 * @param owner the owner token
		 * @param callerExecutor the caller's thread when it blocks anyway, or
		 * {@code null}
		 * @param kind the kind of lock
		 * @param ownerUnique whether the owner token is unique to this acquisition
		 */
		public Claim(String key, String owner, @Nullable Executor callerExecutor, LockKind kind, boolean ownerUnique) {
			this(key, owner, callerExecutor, kind, ownerUnique, NO_FENCING_TOKEN);
		}

		/**
		 * A claim no caller's deadline bounds.
		 * @param key the lock key
		 * @param owner the owner token
		 * @param callerExecutor the caller's thread when it blocks anyway, or
		 * {@code null}
		 * @param kind the kind of lock
		 * @param ownerUnique whether the owner token is unique to this acquisition
		 * @param fencingToken the fencing token of the hold, or {@link #NO_FENCING_TOKEN}
		 */
		public Claim(String key, String owner, @Nullable Executor callerExecutor, LockKind kind, boolean ownerUnique,
				long fencingToken) {
			this(key, owner, callerExecutor, kind, ownerUnique, fencingToken, null);
		}

		/**
		 * The same claim, with its work run on {@code callerExecutor}.
		 * @param callerExecutor the caller's thread when it blocks anyway, or
		 * {@code null}
		 * @return the claim
		 */
		public Claim on(@Nullable Executor callerExecutor) {
			return new Claim(this.key, this.owner, callerExecutor, this.kind, this.ownerUnique, this.fencingToken,
					this.deadline);
		}

		/**
		 * The same claim, for an attempt whose caller stops waiting at {@code deadline}.
		 * @param deadline when the caller stops waiting
		 * @return the claim
		 */
		public Claim until(Deadline deadline) {
			return new Claim(this.key, this.owner, this.callerExecutor, this.kind, this.ownerUnique, this.fencingToken,
					deadline);
		}

		/**
		 * The same claim, as the holder of the lock the store issued {@code fencingToken}
		 * for: no caller waits on its renewals and release, so it has no deadline.
		 * @param fencingToken the fencing token of the hold
		 * @return the claim
		 */
		public Claim holding(long fencingToken) {
			return new Claim(this.key, this.owner, this.callerExecutor, this.kind, this.ownerUnique, fencingToken,
					null);
		}

	}

}
