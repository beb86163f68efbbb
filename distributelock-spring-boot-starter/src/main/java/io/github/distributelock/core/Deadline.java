package io.github.distributelock.core;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A moment on {@link System#nanoTime()}, by which a wait must end. Absolute, so that it
 * can be passed down without being spent twice.
 *
 * @since 1.0.0
 */
public final class Deadline {

	/** Far enough to never come, and never to overflow when compared. */
	private static final long LONGEST_NANOS = Long.MAX_VALUE / 4;

	private final long nanoTime;

	private Deadline(long nanoTime) {
		this.nanoTime = nanoTime;
	}

	/**
	 * The deadline {@code duration} from now; a duration too long for nanoseconds is a
	 * deadline that never comes.
	 * @param duration how long from now, not negative
	 * @return the deadline
	 */
	public static Deadline after(Duration duration) {
		return new Deadline(System.nanoTime() + saturatedNanos(duration));
	}

	/**
	 * How long is left, never negative.
	 * @return the time left
	 */
	public Duration remaining() {
		return Duration.ofNanos(remainingNanos());
	}

	/**
	 * How many nanoseconds are left, never negative.
	 * @return the nanoseconds left
	 */
	public long remainingNanos() {
		return Math.max(0, this.nanoTime - System.nanoTime());
	}

	/**
	 * The moment itself, on {@link System#nanoTime()}'s scale: deadlines compare by it
	 * exactly, where two {@link #remainingNanos()} read at different times do not.
	 */
	long nanoTime() {
		return this.nanoTime;
	}

	/**
	 * Whether the deadline has come.
	 * @return whether no time is left
	 */
	public boolean hasPassed() {
		return this.nanoTime - System.nanoTime() <= 0;
	}

	/**
	 * The earlier of this deadline and the one {@code duration} from now.
	 * @param duration how long from now
	 * @return the earlier deadline
	 */
	public Deadline atMost(Duration duration) {
		long other = System.nanoTime() + saturatedNanos(duration);
		return (other - this.nanoTime < 0) ? new Deadline(other) : this;
	}

	/**
	 * Waits for {@code work} until this deadline, whatever the interrupt flag, which is
	 * set again at the end if it was set at any point: for releases at shutdown, and the
	 * give-back of an interrupted caller's attempt, which must be waited for, but not for
	 * ever.
	 * @return whether {@code work} completed, normally or not
	 */
	boolean awaitUninterruptibly(CompletableFuture<?> work) {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					work.get(remainingNanos(), TimeUnit.NANOSECONDS);
					return true;
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException | CancellationException ex) {
					return true;
				}
				catch (TimeoutException ex) {
					return false;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	static long saturatedNanos(Duration duration) {
		if (duration.isNegative()) {
			return 0;
		}
		return (duration.compareTo(Duration.ofNanos(LONGEST_NANOS)) >= 0) ? LONGEST_NANOS : duration.toNanos();
	}

	@Override
	public String toString() {
		return "Deadline[in " + TimeUnit.NANOSECONDS.toMillis(this.nanoTime - System.nanoTime()) + " ms]";
	}

}
