package io.github.distributelock.autoconfigure;

import io.github.distributelock.core.LockBackend;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;

/**
 * Reached when no backend configuration created a {@link LockBackend}: explains why, so
 * that the application fails at startup with the fix rather than at the first lock.
 *
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnMissingBean(LockBackend.class)
class UnavailableLockBackendConfiguration {

	@Bean
	LockBackend unavailableLockBackend(DistributeLockProperties properties, ResourceLoader resourceLoader) {
		// The application's class loader, which is the one that may lack the library.
		ClassLoader classLoader = resourceLoader.getClassLoader();
		throw explain(properties.getType(),
				(classLoader != null) ? classLoader : UnavailableLockBackendConfiguration.class.getClassLoader());
	}

	static DistributeLockConfigurationException explain(@Nullable String type, @Nullable ClassLoader classLoader) {
		if (type == null || type.isBlank()) {
			return new DistributeLockConfigurationException("No lock store is chosen: distributelock.type is not set.",
					"Set distributelock.type to one of: " + LockType.validValues()
							+ " (or set distributelock.enabled=false to turn distributelock off).");
		}
		LockType lockType = LockType.of(type);
		if (lockType == null) {
			return new DistributeLockConfigurationException(
					"distributelock.type is '" + type + "', which is not a lock store distributelock knows.",
					"Set distributelock.type to one of: " + LockType.validValues() + ".");
		}
		if (!type.equals(type.strip())) {
			// The backends' conditions compare the value as written: spaces around it,
			// from an environment variable or a properties file, choose none of them.
			return new DistributeLockConfigurationException(
					"distributelock.type is '" + type + "', with spaces around the store's name.",
					"Set distributelock.type to '" + lockType.propertyValue() + "', without the spaces.");
		}
		String missing = lockType.missingClass(classLoader)
			.orElseThrow(() -> new DistributeLockConfigurationException(
					"distributelock.type=" + lockType.propertyValue()
							+ " has its libraries, but no lock backend was configured for it.",
					"Check that no other configuration excludes distributelock's " + lockType.propertyValue()
							+ " configuration, or define a LockBackend bean."));
		return new DistributeLockConfigurationException(
				"distributelock.type=" + lockType.propertyValue() + " needs " + missing
						+ " on the classpath, and it is missing.",
				"Add the dependency " + lockType.dependency + " to the application.");
	}

}
