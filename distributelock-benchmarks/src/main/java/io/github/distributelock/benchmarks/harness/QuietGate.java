package io.github.distributelock.benchmarks.harness;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Holds a run back until the machine is quiet: until the 1-minute load average falls
 * below a bound, for at most a given time, after which the run goes on and the page says
 * that it started on a busy machine.
 */
public final class QuietGate {

	private static final Log logger = LogFactory.getLog(QuietGate.class);

	private static final Duration CHECK_EVERY = Duration.ofSeconds(5);

	private QuietGate() {
	}

	/**
	 * Waits for a quiet machine.
	 * @param below the 1-minute load average to wait for
	 * @param longest the longest wait; zero does not wait
	 * @return what was found and how long it took
	 * @throws InterruptedException if interrupted while waiting
	 */
	public static QuietStart await(double below, Duration longest) throws InterruptedException {
		LoadAverage found = LoadAverage.now();
		long start = System.nanoTime();
		long giveUp = start + longest.toNanos();
		LoadAverage now = found;
		if (!(now.one() < below) && !longest.isZero()) {
			logger.info("Load average " + now + ": waiting up to " + longest.toSeconds() + " s for it to fall below "
					+ below);
		}
		while (!(now.one() < below) && System.nanoTime() - giveUp < 0) {
			// The load average has no notification: it is read every few seconds, before
			// anything is measured.
			Thread.sleep(CHECK_EVERY.toMillis());
			now = LoadAverage.now();
		}
		long waited = Duration.ofNanos(System.nanoTime() - start).toSeconds();
		QuietStart result = new QuietStart(below, longest.toSeconds(), found.toString(), now.toString(), waited,
				now.one() < below);
		if (!result.quiet()) {
			logger.warn("Load average still " + now + " after " + waited + " s: starting on a busy machine");
		}
		return result;
	}

	/**
	 * What the gate found.
	 *
	 * @param below the 1-minute load average waited for
	 * @param longestSeconds the longest wait allowed
	 * @param loadFound the load average when the run was asked to start
	 * @param loadAtStart the load average when it started
	 * @param waitedSeconds how long it waited
	 * @param quiet whether the load average had fallen below the bound
	 */
	public record QuietStart(double below, long longestSeconds, String loadFound, String loadAtStart,
			long waitedSeconds, boolean quiet) {

	}

}
