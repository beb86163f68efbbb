package io.github.distributelock.actuate;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a held lock; define a bean of this type to change
 * them.
 *
 * @since 1.0.0
 */
public interface LockHoldObservationConvention extends ObservationConvention<LockHoldContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof LockHoldContext;
	}

}
