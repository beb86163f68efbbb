package io.github.distributelock.autoconfigure;

import io.github.distributelock.actuate.LockAcquisitionObservationConvention;
import io.github.distributelock.actuate.LockHoldObservationConvention;
import io.github.distributelock.actuate.ObservationLockEventListener;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.ShardedLockBackend;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Observes acquisitions and holds with Micrometer when it is on the classpath. The
 * registry is looked up when the listener is created, so this does not depend on the
 * order of auto-configurations; without a registry, observations are no-ops.
 *
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(ObservationRegistry.class)
class LockObservationConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ObservationLockEventListener observationLockEventListener(ObjectProvider<ObservationRegistry> registry,
			ObjectProvider<LockAcquisitionObservationConvention> acquisitionConvention,
			ObjectProvider<LockHoldObservationConvention> holdConvention, ObjectProvider<LockBackend> backend) {
		// A backend with shards has each observation tagged with the shard of its lock.
		ShardedLockBackend shards = (backend.getIfUnique() instanceof ShardedLockBackend sharded) ? sharded : null;
		return new ObservationLockEventListener(registry.getIfUnique(() -> ObservationRegistry.NOOP),
				acquisitionConvention.getIfUnique(), holdConvention.getIfUnique(), shards);
	}

}
