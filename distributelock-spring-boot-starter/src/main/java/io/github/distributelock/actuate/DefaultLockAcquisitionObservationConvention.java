package io.github.distributelock.actuate;

import io.github.distributelock.actuate.DistributeLockObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link LockAcquisitionObservationConvention}: the observation
 * {@code distributelock.acquire} tagged with the backend, the lock name and, once known,
 * the result.
 *
 * @since 1.0.0
 */
public class DefaultLockAcquisitionObservationConvention extends
		AbstractLockObservationConvention<LockAcquisitionContext> implements LockAcquisitionObservationConvention {

	/** A shared instance. */
	public static final DefaultLockAcquisitionObservationConvention INSTANCE = new DefaultLockAcquisitionObservationConvention();

	/**
	 * Creates the convention.
	 */
	public DefaultLockAcquisitionObservationConvention() {
		super("distributelock.acquire", "acquire");
	}

	@Override
	@Nullable KeyValue endKeyValue(LockAcquisitionContext context) {
		LockAcquisitionContext.Result result = context.getResult();
		return (result != null) ? LowCardinalityKeyNames.RESULT.withValue(result.tagValue()) : null;
	}

}
