package io.github.distributelock.reactive;

import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import reactor.blockhound.BlockHound;

/**
 * Installs BlockHound in the test JVM, once: from then on, a blocking call on a Reactor
 * non-blocking thread (Reactor's parallel scheduler, Netty event loops, hence Lettuce's
 * I/O threads) fails the test that made it.
 * <p>
 * The classes that use it run in a surefire execution of their own (tag
 * {@code blockhound}), whose JVM has the flags BlockHound needs, since an installed
 * BlockHound cannot be removed.
 */
public class BlockHoundExtension implements BeforeAllCallback {

	private static final String ZOOKEEPER_EVENT_THREAD = "org.apache.zookeeper.ClientCnxn$EventThread";

	private static final String RESET_RACING_FACTORY = "io.github.distributelock.aop.RedisReactiveLockableTests$ResetRacingFactory";

	private static final AtomicBoolean installed = new AtomicBoolean();

	@Override
	public void beforeAll(ExtensionContext context) {
		if (installed.compareAndSet(false, true)) {
			BlockHound.install((builder) -> builder
				// Delivers watches and Curator's background callbacks: blocking there
				// stalls every watch of the session.
				.nonBlockingThreadPredicate(
						(current) -> current.or((thread) -> thread.getName().endsWith("-EventThread")))
				// The EventThread idles in a blocking take between events; what it runs
				// for an event (watches, callbacks) must not block.
				.allowBlockingCallsInside(ZOOKEEPER_EVENT_THREAD, "run")
				.disallowBlockingCallsInside(ZOOKEEPER_EVENT_THREAD, "processEvent")
				// A test's reset of the shared Redis connection, standing for one that
				// another thread makes at that moment.
				.allowBlockingCallsInside(RESET_RACING_FACTORY, "resetAsIfOnAnotherThread"));
		}
	}

}
