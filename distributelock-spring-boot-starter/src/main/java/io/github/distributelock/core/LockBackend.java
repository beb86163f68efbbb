package io.github.distributelock.core;

import java.time.Duration;

/**
 * The primitives of one lock store; {@link DefaultDistributeLock} builds waiting,
 * reentrancy, lease renewal and lost-lock detection on top of them once for every store.
 * <p>
 * Every method may throw a runtime exception when the store fails; the engine reports it
 * as a {@link io.github.distributelock.DistributeLockException} naming the key and
 * {@link #name() the backend}. Keys and owners are untrusted text: implementations pass
 * them as script arguments or statement parameters, never inside script or SQL text.
 *
 * @author distributelock
 * @since 1.0.0
 */
public interface LockBackend {

	/**
	 * The name of the backend in messages and metrics, such as {@code redis}.
	 * @return the backend name
	 */
	String name();

	/**
	 * One attempt to take the lock, without waiting.
	 * @param key the lock key
	 * @param owner the owner token that must be presented to renew or release
	 * @param lease how long the store keeps the lock unless it is renewed
	 * @return acquired with its fencing token, or not acquired with the remaining lease
	 * of the current holder if the store knows it
	 */
	AcquireResult tryAcquire(String key, String owner, Duration lease);

	/**
	 * Extends the lease of a lock this owner holds.
	 * @param key the lock key
	 * @param owner the owner token
	 * @param lease the new lease, counted from now
	 * @return {@code false} if the lock is no longer held by this owner
	 */
	boolean renew(String key, String owner, Duration lease);

	/**
	 * Releases the lock if this owner holds it.
	 * @param key the lock key
	 * @param owner the owner token
	 * @return {@code false} if the lock was not held by this owner any more
	 */
	boolean release(String key, String owner);

	/**
	 * Blocks until the store signals a release of this key, or {@code maxWait} passes.
	 * Implementations are woken by a notification from the store where it has one, and
	 * return at once if the key is already free when they start listening, so that a
	 * release between a failed attempt and this call is not missed.
	 * @param key the lock key
	 * @param maxWait the longest time to block
	 * @throws InterruptedException if the thread is interrupted
	 */
	void awaitRelease(String key, Duration maxWait) throws InterruptedException;

	/**
	 * Whether this store needs leases renewed while a lock is held; a store whose locks
	 * live as long as the client's session has nothing to renew.
	 * @return whether leases expire unless renewed
	 */
	default boolean leasesExpire() {
		return true;
	}

	/**
	 * Registers a listener to tell when the locks taken through this backend are at risk
	 * or lost because the store ended what kept them, such as the client's session.
	 * {@link DefaultDistributeLock} registers itself at construction. A store whose locks
	 * are only lost when a lease runs out has nothing to tell and keeps this default,
	 * which ignores the listener.
	 * @param listener the listener
	 */
	default void addLossListener(LockLossListener listener) {
	}

	/**
	 * Removes a listener added with {@link #addLossListener(LockLossListener)}.
	 * @param listener the listener
	 */
	default void removeLossListener(LockLossListener listener) {
	}

	/**
	 * One round trip to the store that changes nothing, for health checks. The default
	 * releases a key with an owner nobody has, an owner-checked no-op in every store;
	 * backends override it with their store's own check where it has one.
	 * @throws RuntimeException if the store cannot be reached
	 */
	default void ping() {
		release("distributelock.health-probe", "health-probe:" + Long.toHexString(System.nanoTime()));
	}

}
