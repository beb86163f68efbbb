package io.github.distributelock.autoconfigure;

import io.github.distributelock.actuate.DistributeLocksEndpoint;
import io.github.distributelock.core.DefaultDistributeLock;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code distributelocks} actuator endpoint, when the actuator is on the classpath
 * and the endpoint is exposed.
 *
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
class DistributeLocksEndpointConfiguration {

	// The endpoint condition is on the method: its class is only loaded once the class
	// condition above has found the actuator.
	@Bean
	@ConditionalOnAvailableEndpoint(DistributeLocksEndpoint.class)
	@ConditionalOnMissingBean
	DistributeLocksEndpoint distributeLocksEndpoint(ObjectProvider<DefaultDistributeLock> locks) {
		// An application that defines its own DistributeLock lists no locks here.
		return new DistributeLocksEndpoint(locks.orderedStream().toList());
	}

}
