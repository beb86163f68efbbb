package io.github.distributelock.autoconfigure;

import io.github.distributelock.actuate.LockStoreMonitor;
import io.github.distributelock.core.LockBackend;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;

/**
 * The probe of the lock store, shared by the health indicator and the check at startup so
 * that a change of the store's state is reported once, and that check.
 */
@Configuration(proxyBeanMethods = false)
class LockStoreCheckConfiguration {

	@Bean
	@ConditionalOnMissingBean
	LockStoreMonitor distributeLockStoreProbe(LockBackend backend, ListableBeanFactory beans,
			ResourceLoader resourceLoader) {
		return new LockStoreMonitor(backend,
				LockStoreAddress.of(backend.name(), beans, resourceLoader.getClassLoader()));
	}

	@Bean
	LockStoreStartupCheck distributeLockStoreStartupCheck(LockStoreMonitor probe, DistributeLockProperties properties) {
		return new LockStoreStartupCheck(probe, properties.getStartupCheck(),
				LockStoreAddress.configuredBy(probe.backendName()));
	}

	// With spring.main.lazy-initialization=true, nothing would create the check.
	@Bean
	static LazyInitializationExcludeFilter distributeLockStoreStartupCheckEagerly() {
		return LazyInitializationExcludeFilter.forBeanTypes(LockStoreStartupCheck.class);
	}

}
