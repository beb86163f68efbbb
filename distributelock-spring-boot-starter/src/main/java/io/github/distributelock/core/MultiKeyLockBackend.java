package io.github.distributelock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A {@link LockBackend} that takes several keys in one call to the store, all of them or
 * none, and releases several in one call, so that a multi-key request
 * ({@link io.github.distributelock.LockRequest#all}) costs one round trip to acquire and
 * one to release instead of one per key.
 * <p>
 * The engine asks {@link #batches(List)} first; for claims the backend does not batch
 * (kinds it composes otherwise, keys that no single call can reach together), and for a
 * backend that does not implement this interface, it takes the keys one after the other
 * with {@link #tryAcquire}, as it always can. Everything else stays the engine's: the
 * local gate and reentrancy of each key, the deadline, the wait for the key that was held
 * ({@link #awaitRelease} with the {@link AcquireResult} reported for it), retries, leases
 * and the watchdog, each key's fencing token and lost-lock signal.
 * <p>
 * The calls follow the rules of {@link LockBackend}: they return at once with a stage the
 * store's answer completes, keys and owners are passed as script arguments or statement
 * parameters, and an {@link IllegalArgumentException} or a
 * {@link io.github.distributelock.LockKindConflictException} is an answer that is not
 * retried. A failed {@link #tryAcquireAll} may have been applied by the store; the engine
 * then gives every claim back with {@link #releaseAll} (or {@link #release}), which must
 * therefore be owner-checked and harmless for claims that were never taken.
 *
 * @since 1.0.0
 */
public interface MultiKeyLockBackend extends LockBackend {

	/**
	 * Whether {@link #tryAcquireAll} and {@link #releaseAll} take these claims in one
	 * call. Answers at once, without asking the store.
	 * @param claims the claims, at least one, no key twice
	 * @return {@code true} if the claims can be taken and released together
	 */
	boolean batches(List<Claim> claims);

	/**
	 * One attempt to take every claim, without waiting: either all are taken, each with
	 * its own fencing token drawn as {@link #tryAcquire} draws it for that key (so that
	 * the tokens of a key keep growing across single and multi-key acquisitions), or none
	 * is, and the result names a claim whose key is held and what an attempt of that
	 * claim alone would have said.
	 * @param claims the claims, as {@link #batches(List)} accepted them, each with the
	 * caller's {@link Claim#deadline() deadline}, the same for all
	 * @param leases the lease of each claim, in the order of {@code claims}
	 * @return all acquired with their tokens, or the held claim with its result
	 */
	CompletionStage<MultiKeyAcquireResult> tryAcquireAll(List<Claim> claims, List<Duration> leases);

	/**
	 * Releases every claim that its owner still holds, and tells the waiters of every
	 * instance, as {@link #release} does for each.
	 * @param claims the claims, as {@link #batches(List)} accepted them
	 * @return for each claim, in order, {@code false} if it was not held by its owner any
	 * more
	 */
	CompletionStage<List<Boolean>> releaseAll(List<Claim> claims);

}
