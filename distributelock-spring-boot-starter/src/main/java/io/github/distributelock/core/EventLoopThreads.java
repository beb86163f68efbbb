package io.github.distributelock.core;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Tells whether the calling thread is an event loop, which must never block: a thread
 * Reactor marks non-blocking, or a Netty event-loop thread (a web server's, or a store
 * client's). Reactor and Netty are optional, so each is looked up once.
 */
public final class EventLoopThreads {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.scheduler.Schedulers",
			EventLoopThreads.class.getClassLoader());

	private static final @Nullable Class<?> NETTY_THREAD = nettyThreadClass();

	private EventLoopThreads() {
	}

	/**
	 * Whether the calling thread is an event loop.
	 * @return {@code true} on a Reactor non-blocking thread or a Netty event-loop thread
	 */
	public static boolean onAnEventLoop() {
		return (REACTOR_PRESENT && reactor.core.scheduler.Schedulers.isInNonBlockingThread())
				|| (NETTY_THREAD != null && NETTY_THREAD.isInstance(Thread.currentThread()));
	}

	private static @Nullable Class<?> nettyThreadClass() {
		String name = "io.netty.util.concurrent.FastThreadLocalThread";
		ClassLoader classLoader = EventLoopThreads.class.getClassLoader();
		return ClassUtils.isPresent(name, classLoader) ? ClassUtils.resolveClassName(name, classLoader) : null;
	}

}
