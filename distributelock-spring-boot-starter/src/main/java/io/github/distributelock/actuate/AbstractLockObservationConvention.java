package io.github.distributelock.actuate;

import io.github.distributelock.actuate.DistributeLockObservationDocumentation.HighCardinalityKeyNames;
import io.github.distributelock.actuate.DistributeLockObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.ObservationConvention;
import org.jspecify.annotations.Nullable;

/**
 * What the default conventions of an attempt and of a hold share: the contextual name
 * "{@code <action> lock <name>}", the backend and the lock name as tags, the full key as
 * a trace attribute, and one more tag that says how the observation ended, once it has.
 *
 * @param <C> the context
 */
abstract class AbstractLockObservationConvention<C extends LockObservationContext> implements ObservationConvention<C> {

	private final String name;

	private final String action;

	AbstractLockObservationConvention(String name, String action) {
		this.name = name;
		this.action = action;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public String getContextualName(C context) {
		return this.action + " lock " + context.getLockName();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(C context) {
		KeyValues keyValues = KeyValues.of(LowCardinalityKeyNames.BACKEND.withValue(context.getBackend()),
				LowCardinalityKeyNames.LOCK_NAME.withValue(context.getLockName()),
				LowCardinalityKeyNames.LOCK_KIND.withValue(context.getKind()));
		String shard = context.getShard();
		if (shard != null) {
			keyValues = keyValues.and(LowCardinalityKeyNames.SHARD.withValue(shard));
		}
		// Known only at the end, so the long-task timer of the running observations
		// (callers waiting, locks held) has no such tag.
		KeyValue end = endKeyValue(context);
		return (end != null) ? keyValues.and(end) : keyValues;
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(C context) {
		return KeyValues.of(HighCardinalityKeyNames.LOCK_KEY.withValue(context.getLockKey()));
	}

	/**
	 * The tag that says how the observation ended, or {@code null} while it runs.
	 */
	abstract @Nullable KeyValue endKeyValue(C context);

}
