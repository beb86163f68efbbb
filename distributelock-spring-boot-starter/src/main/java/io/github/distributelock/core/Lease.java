package io.github.distributelock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * How long the store keeps one held lock: a fixed lease, a lease the {@link Watchdog}
 * renews, or none where the lock lives as long as the session.
 */
final class Lease {

	/** The lease in the store, or {@code null} when the session is the lease. */
	final @Nullable Duration duration;

	/** Whether the watchdog renews it. */
	final boolean renewed;

	/**
	 * Whether the watchdog asks the store at each tick whether a lock without a lease is
	 * still this owner's: the owner value of a lock can release it from another instance,
	 * which nothing else would tell this one.
	 */
	final boolean checked;

	/** Marks a lease that is renewed no more. */
	private static final CompletableFuture<Void> STOPPED = CompletableFuture.completedFuture(null);

	/**
	 * The renewal running or queued, completed when it ends, so that ticks never stack
	 * them; {@code null} when none runs, {@link #STOPPED} once renewals have stopped.
	 */
	private final AtomicReference<@Nullable CompletableFuture<Void>> renewal = new AtomicReference<>();

	private volatile long endNanos;

	volatile @Nullable ScheduledFuture<?> expiry;

	private Lease(@Nullable Duration duration, boolean renewed, boolean checked, long startNanos) {
		this.duration = duration;
		this.renewed = renewed;
		this.checked = checked;
		this.endNanos = (duration != null) ? startNanos + Deadline.saturatedNanos(duration) : 0;
	}

	/** A lease counted from {@code startNanos}, when the attempt that took it began. */
	static Lease of(@Nullable Duration fixed, Duration watchdogLease, long startNanos) {
		return (fixed != null) ? new Lease(fixed, false, false, startNanos)
				: new Lease(watchdogLease, true, false, startNanos);
	}

	/**
	 * No lease: the lock lives as long as the client's session.
	 * @param checked whether the watchdog checks that the store still has it for this
	 * owner
	 */
	static Lease session(boolean checked) {
		return new Lease(null, false, checked, 0);
	}

	/**
	 * Starts a renewal, unless one runs or renewals have stopped.
	 * @return completed by the caller when the renewal ends, or {@code null} if none may
	 * start
	 */
	@Nullable CompletableFuture<Void> startRenewal() {
		CompletableFuture<Void> started = new CompletableFuture<>();
		return this.renewal.compareAndSet(null, started) ? started : null;
	}

	/** Ends a renewal that {@link #startRenewal()} started. */
	void endRenewal(CompletableFuture<Void> renewal) {
		this.renewal.compareAndSet(renewal, null);
		renewal.complete(null);
	}

	/**
	 * Stops renewals for good.
	 * @return completes once no renewal runs any more, so that a store command sent then
	 * is the last one to set the lease
	 */
	CompletableFuture<Void> stopRenewals() {
		while (true) {
			CompletableFuture<Void> running = this.renewal.get();
			if (running == null) {
				if (this.renewal.compareAndSet(null, STOPPED)) {
					return STOPPED;
				}
			}
			else {
				// A tick that saw the lock before it was unwatched may start one more.
				return (running == STOPPED) ? STOPPED : running.thenCompose((ended) -> stopRenewals());
			}
		}
	}

	boolean ranOut() {
		return this.duration != null && System.nanoTime() - this.endNanos >= 0;
	}

	/** Renewed by a request sent at {@code sentNanos}: the store counts from later. */
	void extend(long sentNanos) {
		if (this.duration != null) {
			this.endNanos = sentNanos + Deadline.saturatedNanos(this.duration);
		}
	}

	/** When it ends on {@link System#nanoTime()}, or {@code null} without a lease. */
	@Nullable Long endNanos() {
		return (this.duration != null) ? this.endNanos : null;
	}

	long remainingNanos() {
		return Math.max(0, this.endNanos - System.nanoTime());
	}

	/** When it ends on the wall clock, or {@code null} without a lease. */
	@Nullable Instant expiresAt() {
		return (this.duration != null) ? Instant.now().plusNanos(this.endNanos - System.nanoTime()) : null;
	}

}
