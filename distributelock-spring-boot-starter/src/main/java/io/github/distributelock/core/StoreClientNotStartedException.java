package io.github.distributelock.core;

import java.io.Serial;

/**
 * A lock store's client that was never started, as a backend reports it from
 * {@link LockBackend#tryAcquire}: the engine does not retry it until the caller's
 * deadline, as it does a store that fails, since nothing here will start the client.
 *
 * @since 1.0.0
 */
public class StoreClientNotStartedException extends IllegalStateException {

	@Serial
	private static final long serialVersionUID = 1L;

	/**
	 * @param message which client was never started, and how to start it
	 */
	public StoreClientNotStartedException(String message) {
		super(message);
	}

	/**
	 * @param message which client is not started, and how to start it
	 * @param cause what the client answered
	 */
	public StoreClientNotStartedException(String message, Throwable cause) {
		super(message, cause);
	}

}
