package io.github.distributelock;

/**
 * What a holder may share a lock with.
 *
 * @since 1.0.0
 */
public enum LockMode {

	/** One holder at a time (or, with permits, at most that many). */
	EXCLUSIVE,

	/**
	 * Any number of readers at once, and no writer; a reader that asks for the write lock
	 * of its own key is refused at once, as it would deadlock.
	 */
	READ,

	/**
	 * One writer, and no reader; the writer may also take the read lock of its own key,
	 * which enters the write lock again.
	 */
	WRITE

}
