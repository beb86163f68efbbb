package io.github.distributelock.actuate;

import java.util.concurrent.atomic.AtomicBoolean;

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
 * while it waits, then an observation per held lock until its release or its loss,
 * whichever comes first, with events for renewals and losses. See
 * {@link DistributeLockObservationDocumentation} for the names and tags.
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
		Observation parent = this.registry.getCurrentObservation();
		Observation observation = DistributeLockObservationDocumentation.LOCK_ACQUISITION
			.observation(this.acquisitionConvention, DefaultLockAcquisitionObservationConvention.INSTANCE,
					() -> context, this.registry)
			.start();
		return new ObservedLock(context, parent, observation, observation.openScope());
	}

	/**
	 * Follows one acquisition: its attempt on the calling thread, then its hold.
	 */
	private final class ObservedLock implements LockTracker {

		private final LockAcquisitionContext acquisitionContext;

		/** The caller's observation, the parent of both the attempt and the hold. */
		private final @Nullable Observation parent;

		private final Observation acquisition;

		private final Observation.Scope scope;

		/** The thread that opened the scope: the only one where it may be closed. */
		private final Thread scopeThread = Thread.currentThread();

		private final AtomicBoolean scopeClosed = new AtomicBoolean();

		private volatile @Nullable LockHoldContext holdContext;

		private volatile @Nullable Observation hold;

		/**
		 * Set by the first of the loss and the release: the hold ends there, once, and
		 * nothing more is told of it.
		 */
		private final AtomicBoolean holdEnded = new AtomicBoolean();

		/**
		 * Whether a loss was told, perhaps before the hold started: the store may report
		 * a loss while the lock is being acquired.
		 */
		private volatile boolean lost;

		ObservedLock(LockAcquisitionContext acquisitionContext, @Nullable Observation parent, Observation acquisition,
				Observation.Scope scope) {
			this.acquisitionContext = acquisitionContext;
			this.parent = parent;
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
			// The attempt's parent, also when a non-blocking attempt ends on a thread
			// where the caller's observation is not current.
			this.hold = DistributeLockObservationDocumentation.LOCK_HOLD
				.observation(ObservationLockEventListener.this.holdConvention,
						DefaultLockHoldObservationConvention.INSTANCE, () -> context,
						ObservationLockEventListener.this.registry)
				.parentObservation(this.parent)
				.start();
			if (this.lost) {
				endHold(true);
			}
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

		/**
		 * The non-blocking API returns to its caller: the attempt's scope, opened on the
		 * caller's thread, is closed there now, as the attempt ends on another thread.
		 */
		@Override
		public void detached() {
			closeScope();
		}

		private void endAttempt(LockAcquisitionContext.Result result) {
			this.acquisitionContext.setResult(result);
			closeScope();
			this.acquisition.stop();
		}

		/**
		 * Closes the scope once, on the thread that opened it: closed on another thread,
		 * it would make the caller's observation current there, and leave the attempt
		 * current on the caller's thread for whatever that thread observes next.
		 */
		private void closeScope() {
			if (Thread.currentThread() == this.scopeThread && this.scopeClosed.compareAndSet(false, true)) {
				this.scope.close();
			}
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

		private void holdEvent(LockHoldEvent event) {
			Observation observation = this.hold;
			if (observation != null && !this.holdEnded.get()) {
				observation.event(event);
			}
		}

		/**
		 * Ends the hold at the loss: the lock is no longer held, though its handle stays
		 * open until its owner closes it, so the locks held now
		 * ({@code distributelock.hold.active}) no longer count it and the hold is timed
		 * to the loss.
		 */
		@Override
		public void lost(String reason) {
			// Written before the hold is read, as acquired() writes the hold before
			// reading this: a loss told while the hold starts is seen by one of them.
			this.lost = true;
			if (this.hold != null) {
				endHold(true);
			}
		}

		@Override
		public void released() {
			endHold(false);
		}

		private void endHold(boolean atLoss) {
			LockHoldContext context = this.holdContext;
			Observation observation = this.hold;
			if (context == null || observation == null || !this.holdEnded.compareAndSet(false, true)) {
				return;
			}
			if (atLoss) {
				context.markLost();
				observation.event(LockHoldEvent.LOST);
			}
			else {
				context.markReleased();
			}
			observation.stop();
		}

	}

}
