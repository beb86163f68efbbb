package io.github.distributelock.core;

/**
 * Tells the threads of a lock store's client that deliver the answers to a backend's
 * calls (ZooKeeper's event thread, the Redis client's event loops). A caller that blocks
 * on one of them for an answer waits for ever, or until the client's command timeout, and
 * every other caller of the client with it: {@link DefaultDistributeLock} refuses a
 * blocking acquisition there, and sends a release from there without waiting for its
 * answer. A backend implements it beside {@link LockBackend}.
 *
 * @since 1.0.0
 */
public interface StoreClientThreads {

	/**
	 * Whether {@code thread} is one of the store client's threads that deliver this
	 * backend's answers.
	 * @param thread the thread to tell about
	 * @return {@code true} if the client delivers answers to this backend on it
	 */
	boolean deliversAnswersOn(Thread thread);

}
