package io.github.distributelock.scheduling;

import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.Lockable;

import org.springframework.scheduling.annotation.Scheduled;

/**
 * A report job as an application would write it: every two seconds on each instance's own
 * clock, half a second of work, and a minimum hold a little shorter than the period, so
 * that an instance whose ticks come less than the minimum hold later (a clock behind, a
 * busy machine) finds the lock still held, and the next tick finds it free.
 */
public class ReportJob {

	/** The gap between two ticks. */
	public static final long PERIOD_MILLIS = 2000;

	/** The minimum hold of the job's lock. */
	public static final int MIN_HOLD_MILLIS = 1500;

	/** How long one run works. */
	public static final long WORK_MILLIS = 500;

	/**
	 * How much earlier than its tick a run may start on the instance's clock: the
	 * scheduler's delay is counted on {@link System#nanoTime()}, not on the clock.
	 */
	private static final long EARLY_MILLIS = 250;

	private final String instance;

	private final Clock clock;

	private final RunLog runs;

	public ReportJob(String instance, Clock clock, RunLog runs) {
		this.instance = instance;
		this.clock = clock;
		this.runs = runs;
	}

	@Scheduled(cron = "*/2 * * * * *")
	@Lockable(key = "report.job", minHoldMs = MIN_HOLD_MILLIS)
	public void report() {
		Instant start = Instant.now();
		long tick = Math.floorDiv(this.clock.millis() + EARLY_MILLIS, PERIOD_MILLIS);
		try {
			// The job's work.
			TimeUnit.MILLISECONDS.sleep(WORK_MILLIS);
		}
		catch (InterruptedException ex) {
			// The scheduler is shutting down: the run ends early, and is recorded.
			Thread.currentThread().interrupt();
		}
		this.runs.ran(new Run(this.instance, tick, micros(start), micros(Instant.now())));
	}

	private static long micros(Instant instant) {
		return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
	}

}
