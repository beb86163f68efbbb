package io.github.distributelock.core;

import java.io.InterruptedIOException;
import java.nio.channels.ClosedByInterruptException;

/**
 * How the engine keeps a thread's interrupt from leaving locks in the store, and tells an
 * interrupt from a store failure.
 * <p>
 * Store clients answer an interrupt by abandoning the call: Lettuce stops waiting for the
 * reply, Curator throws, a pool stops waiting for a connection. A command already sent
 * may still be applied, so a release abandoned that way leaves the lock in the store (on
 * ZooKeeper for as long as the session lives). Releases therefore run with the interrupt
 * flag cleared and set again after, and a store call that failed because of an interrupt
 * is reported to the caller as {@link InterruptedException}, not as an outage.
 */
final class Interrupts {

	private Interrupts() {
	}

	/**
	 * Whether {@code failure} of a store call came from an interrupt of the calling
	 * thread: the flag is set, or an interrupt is among its causes.
	 */
	static boolean causedInterrupt(Throwable failure) {
		if (Thread.currentThread().isInterrupted()) {
			return true;
		}
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof InterruptedException || cause instanceof InterruptedIOException
					|| cause instanceof ClosedByInterruptException) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	/**
	 * The {@link InterruptedException} that ends an acquisition, with the flag cleared as
	 * the JDK does when it throws one.
	 */
	static InterruptedException interrupted(String key, String backend, Throwable cause) {
		Thread.interrupted();
		InterruptedException interrupted = new InterruptedException(
				"Interrupted while acquiring lock '" + key + "' in " + backend);
		interrupted.initCause(cause);
		return interrupted;
	}

	/**
	 * Throws {@link InterruptedException} if the calling thread is interrupted, clearing
	 * the flag, before an acquisition starts.
	 */
	static void check(String key, String backend) throws InterruptedException {
		if (Thread.interrupted()) {
			throw new InterruptedException("Interrupted before acquiring lock '" + key + "' in " + backend);
		}
	}

}
