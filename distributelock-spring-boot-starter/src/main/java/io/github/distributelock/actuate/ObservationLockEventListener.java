package io.github.distributelock.actuate;

import io.github.distributelock.actuate.DistributeLockObservationDocumentation.LockHoldEvent;
import io.github.distributelock.core.LockEventListener;
import io.github.distributelock.core.LockKind;
import io.github.distributelock.core.LockTracker;
import io.github.distributelock.core.ShardedLockBackend;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * Observes every acquisition with Micrometer's Observation API, so that metrics and
 * traces both follow locks: an observation per attempt, scoped to the calling thread
 * while it waits, then an observation per held lock until its release, with events for
 * renewals and losses. See {@link DistributeLockObservationDocumentation} for the names
 * and tags.
 *
 * @since 1.0.0
 */
public class ObservationLockEventListener implements LockEventListener {

	private final ObservationRegistry registry;

	private final @Nullable LockAcquisitionObservationConvention acquisitionConvention;

	private final @Nullable LockHoldObservationConvention holdConvention;

	private final @Nullable ShardedLockBackend shards;

	/**
	 * Creates a listener with the default conventions.
	 * @param registry the observation registry
	 */
	public ObservationLockEventListener(ObservationRegistry registry) {
		this(registry, null, null);
	}

	/**
	 * Creates a listener.
	 * @param registry the observation registry
	 * @param acquisitionConvention names and tags attempts, or {@code null} for the
	 * default
	 * @param holdConvention names and tags held locks, or {@code null} for the default
	 */
	public ObservationLockEventListener(ObservationRegistry registry,
			@Nullable LockAcquisitionObservationConvention acquisitionConvention,
			@Nullable LockHoldObservationConvention holdConvention) {
		this(registry, acquisitionConvention, holdConvention, null);
	}

	/**
	 * Creates a listener that also tags each observation with the shard of its lock.
	 * @param registry the observation registry
	 * @param acquisitionConvention names and tags attempts, or {@code null} for the
	 * default
	 * @param holdConvention names and tags held locks, or {@code null} for the default
	 * @param shards the backend whose shards hold the locks, or {@code null} if it has
	 * none
	 * @since 1.0.0
	 */
	public ObservationLockEventListener(ObservationRegistry registry,
			@Nullable LockAcquisitionObservationConvention acquisitionConvention,
			@Nullable LockHoldObservationConvention holdConvention, @Nullable ShardedLockBackend shards) {
		this.registry = registry;
		this.acquisitionConvention = acquisitionConvention;
		this.holdConvention = holdConvention;
		this.shards = shards;
	}

	@Override
	public LockTracker acquiring(String key, String name, String backend) {
		return acquiring(key, name, backend, LockKind.EXCLUSIVE);
	}

	@Override
	public LockTracker acquiring(String key, String name, String backend, LockKind kind) {
		if (this.registry.isNoop()) {
			return LockTracker.NONE;
		}
		LockAcquisitionContext context = new LockAcquisitionContext(key, name, backend);
		context.setKind(kind.tag());
		if (this.shards != null) {
			context.setShard(this.shards.shardOf(key));
		}
		Observation observation = DistributeLockObservationDocumentation.LOCK_ACQUISITION
			.observation(this.acquisitionConvention, DefaultLockAcquisitionObservationConvention.INSTANCE,
					() -> context, this.registry)
			.start();
		return new ObservedLock(context, observation, observation.openScope());
	}

	/**
	 * Follows one acquisition: its attempt on the calling thread, then its hold.
	 */
	private final class ObservedLock implements LockTracker {

		private final LockAcquisitionContext acquisitionContext;

		private final Observation acquisition;

		private final Observation.Scope scope;

		private volatile @Nullable LockHoldContext holdContext;

		private volatile @Nullable Observation hold;

		ObservedLock(LockAcquisitionContext acquisitionContext, Observation acquisition, Observation.Scope scope) {
			this.acquisitionContext = acquisitionContext;
			this.acquisition = acquisition;
			this.scope = scope;
		}

		@Override
		public void acquired(long fencingToken) {
			endAttempt(LockAcquisitionContext.Result.ACQUIRED);
			// Started after the attempt's scope closed, so it is the attempt's sibling.
			LockHoldContext context = new LockHoldContext(this.acquisitionContext.getLockKey(),
					this.acquisitionContext.getLockName(), this.acquisitionContext.getBackend(), fencingToken);
			context.setShard(this.acquisitionContext.getShard());
			context.setKind(this.acquisitionContext.getKind());
			this.holdContext = context;
			this.hold = DistributeLockObservationDocumentation.LOCK_HOLD
				.observation(ObservationLockEventListener.this.holdConvention,
						DefaultLockHoldObservationConvention.INSTANCE, () -> context,
						ObservationLockEventListener.this.registry)
				.start();
		}

		@Override
		public void notAcquired() {
			endAttempt(LockAcquisitionContext.Result.TIMEOUT);
		}

		@Override
		public void skipped() {
			endAttempt(LockAcquisitionContext.Result.SKIPPED);
		}

		@Override
		public void failed(Throwable failure) {
			this.acquisition.error(failure);
			endAttempt(LockAcquisitionContext.Result.ERROR);
		}

		private void endAttempt(LockAcquisitionContext.Result result) {
			this.acquisitionContext.setResult(result);
			this.scope.close();
			this.acquisition.stop();
		}

		@Override
		public void renewed() {
			holdEvent(LockHoldEvent.RENEWED);
		}

		@Override
		public void renewalFailed(Throwable failure) {
			holdEvent(LockHoldEvent.RENEWAL_FAILED);
		}

		@Override
		public void releaseFailed(Throwable failure) {
			holdEvent(LockHoldEvent.RELEASE_FAILED);
		}

		@Override
		public void lost(String reason) {
			LockHoldContext context = this.holdContext;
			if (context != null) {
				context.markLost();
			}
			holdEvent(LockHoldEvent.LOST);
		}

		private void holdEvent(LockHoldEvent event) {
			Observation observation = this.hold;
			if (observation != null) {
				observation.event(event);
			}
		}

		@Override
		public void released() {
			LockHoldContext context = this.holdContext;
			Observation observation = this.hold;
			if (context != null && observation != null) {
				context.markReleased();
				observation.stop();
			}
		}

	}

}
