package io.github.distributelock.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Checks of the caller's arguments, with messages that say what to pass instead.
 */
final class Arguments {

	private Arguments() {
	}

	static @Nullable Duration leaseFromMillis(int timeoutMs) {
		if (timeoutMs == -1) {
			return null;
		}
		if (timeoutMs <= 0) {
			throw new IllegalArgumentException("timeoutMs must be positive (a fixed lease in milliseconds) or -1 "
					+ "(a lease renewed until release), was " + timeoutMs);
		}
		return Duration.ofMillis(timeoutMs);
	}

	static void requireKey(String lockKey) {
		if (lockKey == null || lockKey.isBlank()) {
			throw new IllegalArgumentException("lockKey must not be null or blank");
		}
	}

	static void requireWait(Duration waitTime) {
		if (waitTime == null || waitTime.isNegative()) {
			throw new IllegalArgumentException(
					"waitTime must not be negative, was " + waitTime + "; use 0 for a single attempt");
		}
	}

	static void requirePositive(Duration lease, String name) {
		if (lease.isNegative() || lease.isZero() || lease.toMillis() < 1) {
			throw new IllegalArgumentException(
					name + " must be at least 1 ms, was " + lease + "; pass null for a lease renewed by the watchdog");
		}
	}

}
