package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * A {@link LockBackend} that passes a plain exclusive or a fair lock from its holder to
 * another claim in one store operation, with a new fencing token and lease, so that a key
 * contended by callers of one JVM costs one round trip per hand-off instead of a release
 * and an acquisition. {@link DefaultDistributeLock} hands a released plain lock to the
 * next caller of the JVM waiting for the key, a bounded number of times in a row, so that
 * waiters of other instances get a chance at it; and a released fair lock to the first
 * caller of the JVM queued in the store, which takes it only if that caller heads the
 * store's queue.
 *
 * @since 1.0.0
 */
public interface HandOverLockBackend extends LockBackend {

	/**
	 * If {@code holder} holds the lock, gives it to {@code next} with a fencing token
	 * above every token issued for the key before, as one atomic step of the store; if it
	 * does not, makes the attempt {@link #tryAcquire} would for {@code next}. For a fair
	 * lock, only a {@code next} at the head of the store's queue takes it; otherwise the
	 * lock is released and {@code next} keeps its place. Work of a store whose client
	 * blocks runs on the holder's {@link Claim#callerExecutor()}.
	 * @param holder the claim that holds the lock, plain exclusive or fair
	 * @param next the claim to take it, of the same kind
	 * @param lease the lease of {@code next}, counted from now (ignored by a
	 * {@link SessionLockBackend})
	 * @return whether {@code holder} still held the lock, and what the attempt of
	 * {@code next} got
	 */
	CompletionStage<HandOver> handOver(Claim holder, Claim next, Duration lease);

	/**
	 * What {@code next} gets at once, without waiting for the release of {@code holder},
	 * if the store already orders {@code next} right behind {@code holder}, in a session
	 * of this backend that both live as long as: to every other instance the key then
	 * stays held from {@code holder}'s release to {@code next}'s, so {@code next} may
	 * hold before the store has applied the release. The engine then releases
	 * {@code holder} as by {@link #release} (retried like any release if the store fails)
	 * and gives {@code next} the lock at once, instead of a {@link #handOver}; it asks
	 * only a {@link SessionLockBackend} (a lease would have to be set in the store), and
	 * only for a caller that waits on a thread of its own (the new holder's code must not
	 * run on the releasing caller's thread). Answers from what this backend already
	 * knows, without a store call; a backend that cannot tell whether its session still
	 * lives (a client not connected) answers {@code null}.
	 * @param holder the claim that holds a fair lock
	 * @param next the claim of this JVM to take it, queued in the store
	 * @return the attempt {@code next} has won once {@code holder} is released, with its
	 * fencing token, or {@code null} to hand over with {@link #handOver} (the default)
	 */
	default @Nullable AcquireResult admittedByRelease(Claim holder, Claim next) {
		return null;
	}

	/**
	 * The outcome of a {@link #handOver hand-over}.
	 *
	 * @param released whether the holder still held the lock, which is now released
	 * @param next what the claim that was to take it got: acquired with its fencing
	 * token, or held by another owner as after a {@link #tryAcquire} that failed
	 */
	record HandOver(boolean released, AcquireResult next) {

	}

}
