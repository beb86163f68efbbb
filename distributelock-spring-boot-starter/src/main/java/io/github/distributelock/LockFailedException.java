package io.github.distributelock;

import org.jspecify.annotations.Nullable;

/**
 * Thrown by a {@link Lockable @Lockable} method whose lock could not be taken within its
 * wait time, with the message and code of {@link Lockable#failMsg()}.
 *
 * @since 1.0.0
 */
public class LockFailedException extends RuntimeException {

	private final @Nullable String code;

	private final String lockKey;

	/**
	 * Creates an exception for a lock that was not taken.
	 * @param message the message for the caller
	 * @param code the code for the caller, if any
	 * @param lockKey the key that could not be locked
	 */
	public LockFailedException(String message, @Nullable String code, String lockKey) {
		super(message);
		this.code = code;
		this.lockKey = lockKey;
	}

	/**
	 * Creates an exception from a {@code "message|code"} text, the code being optional.
	 * @param messageAndCode the message, then optionally {@code |} and the code
	 * @param lockKey the key that could not be locked
	 * @return the exception
	 */
	public static LockFailedException of(String messageAndCode, String lockKey) {
		int separator = messageAndCode.lastIndexOf('|');
		if (separator < 0) {
			return new LockFailedException(messageAndCode, null, lockKey);
		}
		String code = messageAndCode.substring(separator + 1).trim();
		return new LockFailedException(messageAndCode.substring(0, separator), code.isEmpty() ? null : code, lockKey);
	}

	/**
	 * The code of the failure, such as {@code "2101"}, if one was given.
	 * @return the code, or {@code null}
	 */
	public @Nullable String getCode() {
		return this.code;
	}

	/**
	 * The full key that could not be locked, such as {@code order.addOder_42_abc}.
	 * @return the lock key
	 */
	public String getLockKey() {
		return this.lockKey;
	}

}
