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
 * @param rounds how many times the interleaved and the contended runs are repeated, each
 * time in fresh JVMs and the libraries taking turns, so that a noisy moment on a shared
 * machine does not decide a comparison: a target is met only if it is met in every round
 * @param contendedWarmup the shortest unmeasured start of each contended run
 * @param contendedWarmupLimit the longest: each run warms up until the JIT compilers of
 * its JVMs have settled, but no longer than this
 * @param contendedMeasured the measured part of each contended run
 * @param scaleCycles the lock/unlock cycles over distinct keys of the scale run
 * @param countedCycles the cycles whose store commands are counted
 * @param interleavedBatches the batches of cycles each library runs in one interleaved
 * round
 */
public record Settings(boolean quick, int warmupIterations, int measurementIterations, Duration iterationTime,
		int rounds, Duration contendedWarmup, Duration contendedWarmupLimit, Duration contendedMeasured,
		int scaleCycles, int countedCycles, int interleavedBatches) {

	public static Settings full() {
		return new Settings(false, 3, 5, Duration.ofSeconds(2), 3, Duration.ofSeconds(5), Duration.ofSeconds(30),
				Duration.ofSeconds(6), 100_000, 1_000, 100);
	}

	public static Settings quickRun() {
		return new Settings(true, 1, 2, Duration.ofSeconds(1), 1, Duration.ofSeconds(1), Duration.ofSeconds(5),
				Duration.ofSeconds(2), 10_000, 200, 10);
	}

	/**
	 * The settings of the lock kinds and reactive rows: as these, but shorter, so that
	 * all of them run in about 12 minutes on 2 cores: contended runs warm up at least 3 s
	 * and measure 4 s; interleaved rounds run 30 batches per library. The longest warm-up
	 * stays that of the full run: at 15 s, Redisson's fair lock never settled, and its
	 * figure moved between 893 and 1,866 acquisitions a second from round to round.
	 * @return the settings
	 */
	public Settings forKindRows() {
		if (this.quick) {
			return this;
		}
		return new Settings(false, this.warmupIterations, this.measurementIterations, this.iterationTime, this.rounds,
				Duration.ofSeconds(3), this.contendedWarmupLimit, Duration.ofSeconds(4), this.scaleCycles,
				this.countedCycles, 30);
	}

	/**
	 * The same settings with another number of rounds.
	 * @param rounds the rounds
	 * @return the settings
	 */
	public Settings withRounds(int rounds) {
		if (rounds < 1) {
			throw new IllegalArgumentException("--rounds must be at least 1, was " + rounds);
		}
		return new Settings(this.quick, this.warmupIterations, this.measurementIterations, this.iterationTime, rounds,
				this.contendedWarmup, this.contendedWarmupLimit, this.contendedMeasured, this.scaleCycles,
				this.countedCycles, this.interleavedBatches);
	}

}
