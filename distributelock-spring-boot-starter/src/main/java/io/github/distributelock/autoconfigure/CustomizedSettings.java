package io.github.distributelock.autoconfigure;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Startup failures over settings that a customizer bean may have changed after the
 * properties were read: the failure names the property, which the reader then finds unset
 * or set otherwise, so it also says what the customizer changed.
 */
final class CustomizedSettings {

	private CustomizedSettings() {
	}

	/**
	 * Adds {@code name} with its value to {@code changes} if a customizer changed it.
	 * @param changes the changes so far
	 * @param name the setting's name in the settings class
	 * @param fromProperty the value the property gave
	 * @param value the value after the customizers
	 */
	static void addIfChanged(List<String> changes, String name, Object fromProperty, Object value) {
		if (!Objects.equals(fromProperty, value)) {
			changes.add(name + " to " + value);
		}
	}

	/**
	 * Runs {@code checks}, adding to a startup failure what the customizers changed.
	 * @param customizer the simple name of the customizer type
	 * @param changes what the customizers changed, such as {@code "keyPrefix to x"}
	 * @param checks the checks of the settings and the creation of what they configure
	 * @return what {@code checks} returns
	 */
	static <T> T explainingChanges(String customizer, List<String> changes, Supplier<T> checks) {
		try {
			return checks.get();
		}
		catch (DistributeLockConfigurationException ex) {
			if (changes.isEmpty()) {
				throw ex;
			}
			throw new DistributeLockConfigurationException(
					ex.getDescription() + " A " + customizer + " bean set " + String.join(", ", changes)
							+ " after the properties were read.",
					"Correct the " + customizer + " bean, or: " + ex.getAction());
		}
	}

}
