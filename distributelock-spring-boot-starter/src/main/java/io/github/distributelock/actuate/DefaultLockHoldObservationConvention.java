package io.github.distributelock.actuate;

import io.github.distributelock.actuate.DistributeLockObservationDocumentation.HighCardinalityKeyNames;
import io.github.distributelock.actuate.DistributeLockObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * The default {@link LockHoldObservationConvention}: the observation
 * {@code distributelock.hold} tagged with the backend, the lock name and, once released
 * or lost, the outcome.
 *
 * @since 1.0.0
 */
public class DefaultLockHoldObservationConvention extends AbstractLockObservationConvention<LockHoldContext>
		implements LockHoldObservationConvention {

	/** A shared instance. */
	public static final DefaultLockHoldObservationConvention INSTANCE = new DefaultLockHoldObservationConvention();

	/**
	 * Creates the convention.
	 */
	public DefaultLockHoldObservationConvention() {
		super("distributelock.hold", "hold");
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockHoldContext context) {
		return super.getHighCardinalityKeyValues(context)
			.and(HighCardinalityKeyNames.FENCING_TOKEN.withValue(Long.toString(context.getFencingToken())));
	}

	@Override
	@Nullable KeyValue endKeyValue(LockHoldContext context) {
		if (context.isLost()) {
			return LowCardinalityKeyNames.OUTCOME.withValue("lost");
		}
		return context.isReleased() ? LowCardinalityKeyNames.OUTCOME.withValue("released") : null;
	}

}
