package io.github.distributelock.core;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Renews the leases of the locks held without a fixed lease, every third of the lease,
 * with one periodic tick for all of them.
 * <p>
 * A task scheduled per lock would wake the scheduler's thread at every acquisition (the
 * new task is the earliest in its queue) and be cancelled at every release: a context
 * switch and a queue update on the path of each lock. Here taking and releasing a lock
 * only adds it to and removes it from a set; a lock taken just before a tick is renewed
 * early, which costs one round trip and is harmless.
 */
final class Watchdog {

	private final ScheduledExecutorService scheduler;

	private final long periodNanos;

	private final Set<HeldLock> watched = ConcurrentHashMap.newKeySet();

	private final AtomicBoolean started = new AtomicBoolean();

	Watchdog(ScheduledExecutorService scheduler, Duration lease) {
		this.scheduler = scheduler;
		this.periodNanos = Math.max(1, lease.toNanos() / 3);
	}

	/**
	 * Renews the lock's lease from the next tick on, until {@link #unwatch}.
	 * @throws RejectedExecutionException if the scheduler has stopped
	 */
	void watch(HeldLock lock) {
		if (!this.started.get() && this.started.compareAndSet(false, true)) {
			try {
				this.scheduler.scheduleWithFixedDelay(this::tick, this.periodNanos, this.periodNanos,
						TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				this.started.set(false);
				throw ex;
			}
		}
		this.watched.add(lock);
	}

	void unwatch(HeldLock lock) {
		this.watched.remove(lock);
	}

	/**
	 * Hands each renewal to the scheduler's pool, so that a renewal stuck on an
	 * unreachable store delays neither the others nor the next tick more than the pool
	 * must. A lock whose previous renewal still waits for the store is not renewed again,
	 * but reported lost as soon as its lease has run out, not when the store answers.
	 */
	private void tick() {
		for (HeldLock lock : this.watched) {
			if (!lock.startRenewal()) {
				if (lock.leaseRanOut()) {
					lock.markLost("its lease ran out while its renewal was still waiting for the store");
				}
			}
			else {
				try {
					this.scheduler.execute(lock::renewAndEnd);
				}
				catch (RejectedExecutionException ex) {
					// The lock service is shutting down and releases what it holds.
					lock.endRenewal();
					return;
				}
			}
		}
	}

}
