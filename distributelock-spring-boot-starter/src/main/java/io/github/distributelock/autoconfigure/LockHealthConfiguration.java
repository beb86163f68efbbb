package io.github.distributelock.autoconfigure;

import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.actuate.LockStoreMonitor;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The health indicator of the lock store, shown as {@code distributeLock}, when Spring
 * Boot's health support is on the classpath; turned off by
 * {@code management.health.distributelock.enabled=false}.
 *
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
class LockHealthConfiguration {

	// The health condition is on the method: its class is only loaded once the class
	// condition above has found the library.
	@Bean
	@ConditionalOnEnabledHealthIndicator("distributelock")
	@ConditionalOnMissingBean(name = "distributeLockHealthIndicator")
	DistributeLockHealthIndicator distributeLockHealthIndicator(LockStoreMonitor probe) {
		return new DistributeLockHealthIndicator(probe);
	}

}
