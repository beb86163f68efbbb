package io.github.distributelock.actuate;

import java.util.Set;

import io.github.distributelock.actuate.DistributeLocksEndpoint.HeldLocksDescriptor;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The web side of the {@link DistributeLocksEndpoint}: shows the owner tokens to the
 * callers {@link Show} allows, judged by the roles of the authenticated user.
 *
 * @since 1.0.0
 */
@EndpointWebExtension(endpoint = DistributeLocksEndpoint.class)
public class DistributeLocksEndpointWebExtension {

	private final DistributeLocksEndpoint delegate;

	private final Show showOwners;

	private final Set<String> roles;

	/**
	 * Creates a web extension.
	 * @param delegate the endpoint
	 * @param showOwners when to show the owner tokens
	 * @param roles the roles a user needs to be shown them with
	 * {@link Show#WHEN_AUTHORIZED}; any authenticated user when empty
	 */
	public DistributeLocksEndpointWebExtension(DistributeLocksEndpoint delegate, Show showOwners, Set<String> roles) {
		this.delegate = delegate;
		this.showOwners = showOwners;
		this.roles = roles;
	}

	/**
	 * Lists the locks held now, oldest first.
	 * @param securityContext the caller
	 * @return the held locks
	 */
	@ReadOperation
	public HeldLocksDescriptor heldLocks(SecurityContext securityContext) {
		return this.delegate.heldLocks(this.showOwners.isShown(securityContext, this.roles));
	}

}
