package io.github.distributelock.autoconfigure;

import java.util.LinkedHashSet;
import java.util.Set;

import io.github.distributelock.actuate.DistributeLocksEndpoint;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the {@link DistributeLocksEndpoint}, named and used as
 * Spring Boot's {@code env} endpoint's are.
 *
 * @since 1.0.0
 */
@ConfigurationProperties("management.endpoint.distributelocks")
public class DistributeLocksEndpointProperties {

	/**
	 * When to show the owner tokens of the held locks, which are enough to release them.
	 */
	private Show showValues = Show.NEVER;

	/**
	 * Roles used to determine whether a user is authorized to be shown the owner tokens.
	 * When empty, all authenticated users are authorized.
	 */
	private final Set<String> roles = new LinkedHashSet<>();

	public Show getShowValues() {
		return this.showValues;
	}

	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	public Set<String> getRoles() {
		return this.roles;
	}

}
