package io.github.distributelock.redis;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.distributelock.core.EventLoopThreads;

/**
 * The threads the Redis client has delivered this backend's answers on: the event loops
 * of its connections, learnt as they deliver. Netty's thread class alone cannot tell them
 * from the event loops of a web server, where blocking on another store's answer is
 * merely slow; on one of these, a caller that blocks for an answer of the same connection
 * waits until the command times out, and every command of the connection with it.
 */
final class RedisAnswerThreads {

	/**
	 * Far more than a client has event loops: a bound in case a client completes its
	 * commands on a pool whose threads come and go.
	 */
	private static final int MOST_THREADS = 256;

	private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

	/**
	 * Learns the calling thread, which runs the callback of an answer to a command
	 * {@code sender} sent: unless it is the sender itself, which runs the callback when
	 * the answer came before it was registered, it is the thread that read the answer.
	 */
	void answeredOnThisThread(Thread sender) {
		Thread current = Thread.currentThread();
		if (current != sender) {
			answeredOnThisThread();
		}
	}

	/**
	 * Learns the calling thread, which delivers a message of a subscription.
	 */
	void answeredOnThisThread() {
		Thread current = Thread.currentThread();
		if (!this.threads.contains(current) && this.threads.size() < MOST_THREADS) {
			this.threads.add(current);
		}
	}

	boolean contains(Thread thread) {
		return this.threads.contains(thread);
	}

	/**
	 * Whether a caller on {@code thread}, the calling one, must not block: an event loop,
	 * a Reactor non-blocking thread, or one of these.
	 */
	boolean mustNotBlock(Thread thread) {
		return EventLoopThreads.onAnEventLoop() || contains(thread);
	}

}
