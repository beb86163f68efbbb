package io.github.distributelock.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The check of a duration property that must last at least 1 ms, with the startup failure
 * that names the property, says why, and what to set.
 */
final class PositiveDuration {

	private static final Duration SHORTEST = Duration.ofMillis(1);

	private PositiveDuration() {
	}

	/**
	 * Fails the start when {@code value} is shorter than 1 ms, or {@code null} (as a
	 * customizer can set it).
	 * @param property the property's full name
	 * @param value its value
	 * @param reason why it must last at least 1 ms, as a clause without its full stop
	 * @param defaultValue the default to name in the action, or {@code null} to name none
	 * @return the value
	 * @throws DistributeLockConfigurationException if the value is shorter than 1 ms or
	 * {@code null}
	 */
	static Duration require(String property, @Nullable Duration value, String reason, @Nullable String defaultValue) {
		if (value == null || value.compareTo(SHORTEST) < 0) {
			String removal = (defaultValue != null) ? " (" + defaultValue + " by default), or remove it."
					: ", or remove it for its default.";
			String problem = (value != null) ? property + " is " + value + ": " + reason + "." : property + " is null.";
			throw new DistributeLockConfigurationException(problem,
					"Set " + property + " to a positive duration" + removal);
		}
		return value;
	}

}
