package io.github.distributelock.autoconfigure;

import io.github.distributelock.actuate.DistributeLockHealthIndicator;
import io.github.distributelock.actuate.LockStoreMonitor;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@link DistributeLockHealthIndicator health indicator} of the
 * lock store, shown as {@code distributeLock}, when Spring Boot's health support is on
 * the classpath; turned off by {@code management.health.distributelock.enabled=false}.
 *
 * @since 1.0.0
 */
@AutoConfiguration(after = DistributeLockAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(LockStoreMonitor.class)
public final class DistributeLockHealthContributorAutoConfiguration {

	// The health condition is on the method: the conditions of a class are all loaded
	// before any is evaluated, and this one's only exists with the library that the class
	// condition looks for.
	@Bean
	@ConditionalOnEnabledHealthIndicator("distributelock")
	@ConditionalOnMissingBean(name = "distributeLockHealthIndicator")
	DistributeLockHealthIndicator distributeLockHealthIndicator(LockStoreMonitor monitor) {
		return new DistributeLockHealthIndicator(monitor);
	}

}
