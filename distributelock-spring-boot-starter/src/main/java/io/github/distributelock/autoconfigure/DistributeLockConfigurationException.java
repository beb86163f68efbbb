package io.github.distributelock.autoconfigure;

/**
 * Thrown at startup when distributelock is configured in a way that cannot work; its
 * description and action are shown by a failure analyzer.
 *
 * @since 1.0.0
 */
public class DistributeLockConfigurationException extends IllegalStateException {

	private final String description;

	private final String action;

	/**
	 * Creates an exception.
	 * @param description what is wrong
	 * @param action what to change
	 */
	public DistributeLockConfigurationException(String description, String action) {
		super(description + " " + action);
		this.description = description;
		this.action = action;
	}

	/**
	 * What is wrong.
	 * @return the description
	 */
	public String getDescription() {
		return this.description;
	}

	/**
	 * What to change.
	 * @return the action
	 */
	public String getAction() {
		return this.action;
	}

}
