package io.github.distributelock.autoconfigure;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.actuate.DistributeLocksEndpoint;
import io.github.distributelock.actuate.DistributeLocksEndpointWebExtension;
import io.github.distributelock.core.DefaultDistributeLock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link DistributeLocksEndpoint distributelocks} actuator
 * endpoint, when the actuator is on the classpath and the endpoint is exposed, with its
 * web extension when it is exposed over the web.
 *
 * @since 1.0.0
 */
@AutoConfiguration(after = DistributeLockAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(DistributeLock.class)
@EnableConfigurationProperties(DistributeLocksEndpointProperties.class)
public final class DistributeLocksEndpointAutoConfiguration {

	// The endpoint conditions are on the methods: the conditions of a class are all
	// loaded before any is evaluated, and these only exist with the actuator that the
	// class condition looks for.
	@Bean
	@ConditionalOnAvailableEndpoint(DistributeLocksEndpoint.class)
	@ConditionalOnMissingBean
	DistributeLocksEndpoint distributeLocksEndpoint(ObjectProvider<DefaultDistributeLock> locks,
			DistributeLocksEndpointProperties properties) {
		// An application that defines its own DistributeLock lists no locks here.
		return new DistributeLocksEndpoint(locks.orderedStream().toList(), properties.getShowValues());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(DistributeLocksEndpoint.class)
	@ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
	DistributeLocksEndpointWebExtension distributeLocksEndpointWebExtension(DistributeLocksEndpoint endpoint,
			DistributeLocksEndpointProperties properties) {
		return new DistributeLocksEndpointWebExtension(endpoint, properties.getShowValues(), properties.getRoles());
	}

}
