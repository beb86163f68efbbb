package io.github.distributelock;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A held distributed lock, released by {@link #close()}.
 * <p>
 * A handle belongs to its owner token, not to a thread: it may be closed from any thread,
 * which suits asynchronous code and virtual threads.
 *
 * @since 1.0.0
 */
public interface LockHandle extends AutoCloseable {

	/**
	 * The lock key as passed by the caller (before any store prefix).
	 * @return the lock key
	 */
	String key();

	/**
	 * A number that grows with every acquisition of this key, so that a resource that
	 * remembers the highest token it has seen can reject writes from a holder that was
	 * paused past its lease.
	 * @return the fencing token of this acquisition
	 */
	long fencingToken();

	/**
	 * Whether the lock is still held: false once it is closed, once its lease ran out, or
	 * once the store reported it lost.
	 * @return whether the lock is still held
	 */
	boolean isHeld();

	/**
	 * Whether this handle was closed, by {@link #close()} or {@link #releaseAsync()}: its
	 * holder gave the lock back, where {@link #isHeld()} also turns false when the lock
	 * is lost. It tells a holder's own release apart from a loss, such as to a
	 * {@link FencedResource} handed a closed handle. An implementation that does not
	 * track it answers {@code false}.
	 * @return whether this handle was closed
	 * @since 1.0.0
	 */
	default boolean isClosed() {
		return false;
	}

	/**
	 * Whether the lock may be lost without this client knowing yet, because the
	 * connection to a store whose locks live with the session is interrupted (ZooKeeper:
	 * the connection is suspended). It turns false again when the connection comes back
	 * in time, and {@link #isHeld()} turns false if it does not. Work that must never
	 * overlap should pause while its lock is suspect, or pass the {@link #fencingToken()
	 * fencing token} to the resource it protects.
	 * @return whether the lock is held but at risk
	 * @since 1.0.0
	 */
	default boolean isSuspect() {
		return false;
	}

	/**
	 * Registers a listener told once when the lock is lost before it is closed; told
	 * right away, on the thread below, if it is lost already.
	 * <p>
	 * Listeners run on one thread of the lock service, named
	 * {@code distributelock-lost-listeners}, never on the thread of the store's client
	 * that found the loss nor on the one that renews the leases of the other locks: a
	 * listener may call the store or send an alert. The listeners of a handle are told in
	 * the order they were registered, those of all handles one after the other, so a
	 * listener should not block for long: a slow one delays the next loss reported to the
	 * others. One that throws is logged with the key.
	 * @param listener the listener, given this handle
	 * @return this handle
	 */
	LockHandle onLost(Consumer<LockHandle> listener);

	/**
	 * Releases the lock without blocking the calling thread. Releasing it again sends
	 * nothing to the store and returns a future that completes as the first release (by
	 * this method or by {@link #close()}) does, once that one has ended, also while it is
	 * still on its way to the store; closing the handle afterwards sends nothing either,
	 * and returns once that release has ended. On JDBC the statement runs on a pool of
	 * the backend's.
	 * @return completes when the store released the lock; exceptionally with
	 * {@link LockLostException} if it had been lost and
	 * {@code distributelock.throw-on-lost} is set, or with
	 * {@link DistributeLockException} if the store failed (the release is then retried in
	 * the background until the lease would have ended)
	 * @since 1.0.0
	 */
	CompletableFuture<Void> releaseAsync();

	/**
	 * Releases the lock, also on a thread whose interrupt flag is set (the flag stays
	 * set). Closing a handle that was released already sends nothing to the store, and
	 * returns once that release has ended (at once on the thread of the store's client
	 * that delivers its answers, which that release may still need).
	 * @throws LockLostException if the lock was lost before it was closed and
	 * {@code distributelock.throw-on-lost} is set
	 * @throws DistributeLockException if the store fails; the release is then retried in
	 * the background until the lease would have ended
	 */
	@Override
	void close();

}
