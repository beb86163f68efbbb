package io.github.distributelock.actuate;

import io.github.distributelock.actuate.DistributeLockObservationDocumentation.HighCardinalityKeyNames;
import io.github.distributelock.actuate.DistributeLockObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValues;

/**
 * The default {@link LockAcquisitionObservationConvention}: the observation
 * {@code distributelock.acquire} tagged with the backend, the lock name, the shard when
 * the backend has shards and, once known, the result.
 *
 * @since 1.0.0
 */
public class DefaultLockAcquisitionObservationConvention implements LockAcquisitionObservationConvention {

	/** A shared instance. */
	public static final DefaultLockAcquisitionObservationConvention INSTANCE = new DefaultLockAcquisitionObservationConvention();

	@Override
	public String getName() {
		return "distributelock.acquire";
	}

	@Override
	public String getContextualName(LockAcquisitionContext context) {
		return "acquire lock " + context.getLockName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(LockAcquisitionContext context) {
		KeyValues keyValues = KeyValues.of(LowCardinalityKeyNames.BACKEND.withValue(context.getBackend()),
				LowCardinalityKeyNames.LOCK_NAME.withValue(context.getLockName()));
		String shard = context.getShard();
		if (shard != null) {
			keyValues = keyValues.and(LowCardinalityKeyNames.SHARD.withValue(shard));
		}
		LockAcquisitionContext.Result result = context.getResult();
		// Known only at the end, so the long-task timer of waiting callers has no result.
		return (result != null) ? keyValues.and(LowCardinalityKeyNames.RESULT.withValue(result.tagValue())) : keyValues;
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(LockAcquisitionContext context) {
		return KeyValues.of(HighCardinalityKeyNames.LOCK_KEY.withValue(context.getLockKey()));
	}

}
