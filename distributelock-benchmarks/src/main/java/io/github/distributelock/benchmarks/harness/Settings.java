package io.github.distributelock.benchmarks.harness;

import java.time.Duration;

/**
 * How long each part of a run measures: the full run for the page, or a quick run that
 * only checks that everything works.
 *
 * @param quick whether this is the quick run
 * @param warmupIterations JMH warm-up iterations per library and mode
 * @param measurementIterations JMH measured iterations per library and mode
 * @param iterationTime the length of one JMH iteration
 * @param contendedWarmup the unmeasured start of each contended run
 * @param contendedMeasured the measured part of each contended run
 * @param contendedRounds how many times each contended run is repeated, the libraries
 * taking turns, so that a noisy moment on a shared machine does not decide a comparison
 * @param scaleCycles the lock/unlock cycles over distinct keys of the scale run
 * @param countedCycles the cycles whose store commands are counted
 * @param interleavedRounds the rounds of the interleaved run
 */
public record Settings(boolean quick, int warmupIterations, int measurementIterations, Duration iterationTime,
		Duration contendedWarmup, Duration contendedMeasured, int contendedRounds, int scaleCycles, int countedCycles,
		int interleavedRounds) {

	public static Settings full() {
		return new Settings(false, 3, 5, Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(6), 3,
				100_000, 1_000, 100);
	}

	public static Settings quickRun() {
		return new Settings(true, 1, 2, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(2), 1, 10_000,
				200, 10);
	}

}
