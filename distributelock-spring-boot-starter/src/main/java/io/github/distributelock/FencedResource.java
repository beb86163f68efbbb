package io.github.distributelock;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A resource served by this JVM that accepts work only from the current lock holder, told
 * apart by its {@linkplain LockHandle#fencingToken() fencing token}: a write is accepted
 * with a token at least as high as the highest one accepted so far, and rejected with a
 * lower one. A holder that was paused past its lease (a GC pause, a stopped VM) and then
 * resumes still believes it holds the lock; its token is lower than its successor's, so
 * its late write is refused instead of overwriting the successor's work.
 * <p>
 * The check and the write run under one lock, so a stale holder cannot slip its write in
 * between a newer holder's check and write. The lock is a {@link ReentrantLock}, which
 * does not pin virtual threads. Equal tokens are accepted so that one holder can write
 * several times.
 * <p>
 * Fencing only protects what checks the token: use this class where the resource is in
 * this JVM (a service that other instances send their writes to); for a database row,
 * store the token with the row and guard the update the same way
 * ({@code UPDATE ... SET fence = :token ... WHERE id = :id AND fence <= :token}), see
 * {@code docs/fencing-tokens.md}.
 *
 * @since 1.0.0
 */
public final class FencedResource {

	private final ReentrantLock lock = new ReentrantLock();

	private long highestAccepted = Long.MIN_VALUE;

	/**
	 * Runs {@code write} if {@code fencingToken} is at least the highest token accepted
	 * so far, and remembers the token.
	 * @param <T> the result type
	 * @param fencingToken the writer's fencing token
	 * @param write the work on the resource
	 * @return the result of {@code write}
	 * @throws StaleFencingTokenException if a higher token has been accepted, so a newer
	 * holder has taken the lock since the writer's acquisition; {@code write} did not run
	 */
	public <T> T write(long fencingToken, Supplier<T> write) {
		this.lock.lock();
		try {
			if (fencingToken < this.highestAccepted) {
				throw new StaleFencingTokenException(fencingToken, this.highestAccepted);
			}
			this.highestAccepted = fencingToken;
			return write.get();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Runs {@code write} with the token of {@code handle}, if the handle still holds its
	 * lock as far as this JVM knows and no newer token has been accepted.
	 * @param <T> the result type
	 * @param handle the writer's lock
	 * @param write the work on the resource
	 * @return the result of {@code write}
	 * @throws LockLostException if the handle knows its lock is lost
	 * @throws IllegalStateException if the handle was closed: its holder released the
	 * lock before writing
	 * @throws StaleFencingTokenException if a higher token has been accepted
	 */
	public <T> T write(LockHandle handle, Supplier<T> write) {
		if (handle.isClosed()) {
			throw new IllegalStateException("Lock '" + handle.key() + "' was released by its holder (its handle is "
					+ "closed) before this write; write through the handle before closing it");
		}
		if (!handle.isHeld()) {
			throw new LockLostException(handle.key(), "the store");
		}
		return write(handle.fencingToken(), write);
	}

	/**
	 * Accepts {@code fencingToken} without any work, as a write with nothing to do would.
	 * @param fencingToken the writer's fencing token
	 * @return whether the token was accepted: no higher token had been accepted
	 */
	public boolean tryAccept(long fencingToken) {
		try {
			return write(fencingToken, () -> Boolean.TRUE);
		}
		catch (StaleFencingTokenException ex) {
			return false;
		}
	}

	/**
	 * The highest token accepted so far.
	 * @return the token, or {@link Long#MIN_VALUE} if none was accepted yet
	 */
	public long highestAccepted() {
		this.lock.lock();
		try {
			return this.highestAccepted;
		}
		finally {
			this.lock.unlock();
		}
	}

}
