package io.github.distributelock.actuate;

import io.github.distributelock.actuate.DistributeLockObservationDocumentation.HighCardinalityKeyNames;
import io.github.distributelock.actuate.DistributeLockObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link LockHoldObservationConvention}: the observation
 * {@code distributelock.hold} tagged with the backend, the lock name, the shard when the
 * backend has shards and, once released, the outcome.
 *
 * @since 1.0.0
 */
public class DefaultLockHoldObservationConvention implements LockHoldObservationConvention {

	/** A shared instance. */
	public static final DefaultLockHoldObservationConvention INSTANCE = new DefaultLockHoldObservationConvention();

	@Override
	public String getName() {
		return "distributelock.hold";
	}

	@Override
	public String getContextualName(LockHoldContext context) {
		return "hold lock " + context.getLockName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockHoldContext context) {
		KeyValues keyValues = KeyValues.of(LowCardinalityKeyNames.BACKEND.withValue(context.getBackend()),
				LowCardinalityKeyNames.LOCK_NAME.withValue(context.getLockName()));
		String shard = context.getShard();
		if (shard != null) {
			keyValues = keyValues.and(LowCardinalityKeyNames.SHARD.withValue(shard));
		}
		if (!context.isReleased()) {
			// Known only at the end, so the long-task timer of held locks has no outcome.
			return keyValues;
		}
		return keyValues.and(LowCardinalityKeyNames.OUTCOME.withValue(context.isLost() ? "lost" : "released"));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockHoldContext context) {
		return KeyValues.of(HighCardinalityKeyNames.LOCK_KEY.withValue(context.getLockKey()),
				HighCardinalityKeyNames.FENCING_TOKEN.withValue(Long.toString(context.getFencingToken())));
	}

}
