package io.github.distributelock.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of an attempt to take a lock; define a bean of this type
 * to change them.
 *
 * @since 1.0.0
 */
public interface LockAcquisitionObservationConvention extends ObservationConvention<LockAcquisitionContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockAcquisitionContext;
	}

}
