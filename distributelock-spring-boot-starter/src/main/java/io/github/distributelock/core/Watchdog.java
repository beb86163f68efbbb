package io.github.distributelock.core;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the leases of held locks: renews those without a fixed lease every third of the
 * lease, with one periodic tick for all of them, and reports a lock lost when its fixed
 * lease runs out or its renewals fail until its lease has run out.
 * <p>
 * A task scheduled per lock would wake the scheduler's thread at every acquisition (the
 * new task is the earliest in its queue) and be cancelled at every release: a context
 * switch and a queue update on the path of each lock. Here taking and releasing a lock
 * only adds it to and removes it from a set; a lock taken just before a tick is renewed
 * early, which costs one round trip and is harmless.
 */
final class Watchdog {

	private static final Log logger = LogFactory.getLog(DefaultDistributeLock.class);

	/** Longer than any wait: {@link Deadline#atMost} takes it as no bound. */
	private static final Duration NEVER = Duration.ofNanos(Long.MAX_VALUE);

	private final StoreCalls store;

	private final ScheduledExecutorService scheduler;

	private final Duration lease;

	private final boolean sessionStore;

	private final Set<HeldLock> watched = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean started = new AtomicBoolean();

	/** The periodic tick, once started. */
	private volatile @Nullable ScheduledFuture<?> ticks;

	private volatile boolean closed;

	Watchdog(StoreCalls store, ScheduledExecutorService scheduler, Duration lease) {
		this.store = store;
		this.scheduler = scheduler;
		this.lease = lease;
		this.sessionStore = store.backend() instanceof SessionLockBackend;
	}

	/** The lease an attempt asks the store for: the fixed one, or the watchdog's. */
	Duration storeLease(@Nullable Duration fixed) {
		return (fixed != null) ? fixed : this.lease;
	}

	/**
	 * How long after its answer a lock taken with this lease is gone from the store by
	 * itself: the lease, or never on a store whose locks live with the session, which
	 * ignores leases.
	 */
	Duration expiresAfter(@Nullable Duration fixed) {
		return this.sessionStore ? NEVER : storeLease(fixed);
	}

	/** The lease of a lock taken by an attempt that began at {@code startNanos}. */
	Lease newLease(@Nullable Duration fixed, long startNanos) {
		return newLease(fixed, startNanos, false);
	}

	/**
	 * The lease of a lock taken by an attempt that began at {@code startNanos}; on a
	 * store whose locks live with the session, checked at each tick if its owner value
	 * was chosen by the caller, since that value may release it from another instance.
	 */
	Lease newLease(@Nullable Duration fixed, long startNanos, boolean ownerChosen) {
		return this.sessionStore ? Lease.session(ownerChosen) : Lease.of(fixed, this.lease, startNanos);
	}

	/**
	 * Starts keeping the lease of a lock just taken.
	 * @throws RejectedExecutionException if the scheduler has stopped
	 */
	void watch(HeldLock lock) {
		Lease lease = lock.lease;
		if (lease.duration == null) {
			if (lease.checked) {
				startTicks();
				this.watched.add(lock);
				if (lock.ended()) {
					this.watched.remove(lock);
				}
			}
			return;
		}
		if (!lease.renewed) {
			lease.expiry = this.scheduler.schedule(
					() -> lock.markLost("its fixed lease of " + lease.duration.toMillis() + " ms ran out"),
					lease.remainingNanos(), TimeUnit.NANOSECONDS);
			return;
		}
		startTicks();
		this.watched.add(lock);
		if (lock.ended()) {
			// Released or lost between the store's answer and this call: its release
			// unwatched it before it was watched, and nothing else would.
			this.watched.remove(lock);
		}
	}

	private void startTicks() {
		if (!this.started.get() && this.started.compareAndSet(false, true)) {
			long period = Math.max(1, this.lease.toNanos() / 3);
			try {
				this.ticks = this.scheduler.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				this.started.set(false);
				throw ex;
			}
			if (this.closed) {
				// close() ran before the tick was set, and did not see it.
				cancelTicks();
			}
		}
	}

	/**
	 * Stops the periodic tick, once the locks are released: a scheduler given by the
	 * application outlives the lock service, and would otherwise run the tick, and keep
	 * the service and its store client reachable, for as long.
	 */
	void close() {
		this.closed = true;
		cancelTicks();
	}

	private void cancelTicks() {
		ScheduledFuture<?> current = this.ticks;
		if (current != null) {
			current.cancel(false);
		}
	}

	void unwatch(HeldLock lock) {
		this.watched.remove(lock);
		ScheduledFuture<?> expiry = lock.lease.expiry;
		if (expiry != null) {
			expiry.cancel(false);
		}
	}

	/**
	 * Sends each renewal without waiting for it, so that a renewal stuck on an
	 * unreachable store delays neither the others nor the next tick. A lock whose
	 * previous renewal still waits for the store is not renewed again, but reported lost
	 * as soon as its lease has run out, not when the store answers.
	 */
	private void tick() {
		for (HeldLock lock : this.watched) {
			try {
				tick(lock);
			}
			catch (RuntimeException | Error ex) {
				// Thrown out of the periodic task, it would end the renewals of every
				// lock.
				logger.warn("Could not keep the lease of lock '" + lock.key + "' in " + this.store.name(), ex);
			}
		}
	}

	private void tick(HeldLock lock) {
		CompletableFuture<Void> renewal = lock.lease.startRenewal();
		if (renewal == null) {
			if (lock.lease.ranOut()) {
				lock.markLost("its lease ran out while its renewal was still waiting for the store");
			}
			return;
		}
		renew(lock, renewal);
	}

	/**
	 * Stops renewing a lock that is kept in the store for its minimum hold.
	 * @return completes once no renewal of it is in flight, so that the lease the caller
	 * sets next is not overwritten
	 */
	CompletableFuture<Void> stopRenewing(HeldLock lock) {
		unwatch(lock);
		return lock.lease.stopRenewals();
	}

	private void renew(HeldLock lock, CompletableFuture<Void> renewal) {
		long sent = System.nanoTime();
		this.store.renew(lock.claim, this.lease).whenComplete((renewed, failure) -> {
			try {
				renewed(lock, sent, renewed, failure);
			}
			finally {
				lock.lease.endRenewal(renewal);
			}
		});
	}

	private void renewed(HeldLock lock, long sent, @Nullable Boolean renewed, @Nullable Throwable failure) {
		if (lock.lease.duration == null) {
			checked(lock, renewed, failure);
		}
		else if (failure != null) {
			if (lock.lease.ranOut()) {
				lock.markLost("its lease ran out while renewals failed: " + failure.getMessage());
			}
			else {
				logger.warn("Could not renew lock '" + lock.key + "' in " + this.store.name()
						+ "; retrying while the lease lasts: " + failure.getMessage());
				lock.tracker.renewalFailed(failure);
			}
		}
		else if (Boolean.TRUE.equals(renewed)) {
			if (lock.renewedAfterLoss(sent + this.lease.toNanos())) {
				return;
			}
			lock.lease.extend(sent);
			lock.tracker.renewed();
		}
		else {
			lock.markLost("the store no longer had it at renewal");
		}
	}

	/**
	 * The answer to the check of a lock without a lease. A failed check loses nothing:
	 * the session's own signals tell when its locks are at risk or lost.
	 */
	private void checked(HeldLock lock, @Nullable Boolean owned, @Nullable Throwable failure) {
		if (failure != null) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not check lock '" + lock.key + "' in " + this.store.name() + "; checking again at "
						+ "the next tick: " + failure.getMessage());
			}
		}
		else if (!Boolean.TRUE.equals(owned)) {
			lock.markLost("the store no longer had it for its owner value at a check (released by that value "
					+ "elsewhere?)");
		}
	}

}
