package io.github.distributelock.autoconfigure;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.actuate.LockAcquisitionObservationConvention;
import io.github.distributelock.actuate.LockHoldObservationConvention;
import io.github.distributelock.actuate.ObservationLockEventListener;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.ShardedLockBackend;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of Micrometer observations of acquisitions and held locks, when the
 * application has an {@link ObservationRegistry}.
 *
 * @since 1.0.0
 */
@AutoConfiguration(after = DistributeLockAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, DistributeLock.class })
public final class DistributeLockObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ObservationLockEventListener observationLockEventListener(ObservationRegistry registry,
			ObjectProvider<LockAcquisitionObservationConvention> acquisitionConvention,
			ObjectProvider<LockHoldObservationConvention> holdConvention, ObjectProvider<LockBackend> backend) {
		// A backend with shards has each observation tagged with the shard of its lock.
		ShardedLockBackend shards = (backend.getIfUnique() instanceof ShardedLockBackend sharded) ? sharded : null;
		return new ObservationLockEventListener(registry, acquisitionConvention.getIfAvailable(),
				holdConvention.getIfAvailable(), shards);
	}

}
