package io.github.distributelock.autoconfigure;

import io.github.distributelock.actuate.LockStoreMonitor;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;

/**
 * Auto-configuration of the check of the lock store when the application starts, as
 * {@code distributelock.startup-check} says.
 *
 * @since 1.0.0
 */
@AutoConfiguration(after = DistributeLockAutoConfiguration.class)
@ConditionalOnBean({ LockStoreMonitor.class, DistributeLockProperties.class })
public final class DistributeLockStartupCheckAutoConfiguration {

	@Bean
	LockStoreStartupCheck distributeLockStoreStartupCheck(LockStoreMonitor monitor, DistributeLockProperties properties,
			ListableBeanFactory beans, ResourceLoader resourceLoader) {
		return new LockStoreStartupCheck(monitor, properties.getStartupCheck(),
				LockStoreAddress.configuredBy(monitor.backendName(), beans, resourceLoader.getClassLoader()));
	}

	// With spring.main.lazy-initialization=true, nothing would create the check.
	@Bean
	static LazyInitializationExcludeFilter distributeLockStoreStartupCheckEagerly() {
		return LazyInitializationExcludeFilter.forBeanTypes(LockStoreStartupCheck.class);
	}

}
