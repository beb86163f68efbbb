package io.github.distributelock.benchmarks.harness;

import java.util.Arrays;

/**
 * Percentiles of a set of samples, by sorting them (the contended runs record a few
 * thousand samples at most).
 */
final class Percentiles {

	private Percentiles() {
	}

	/**
	 * The nearest-rank percentile.
	 * @param sorted the samples, sorted
	 * @param percentile from 0 to 100
	 * @return the sample at that rank, or {@code NaN} if there are none
	 */
	static double of(long[] sorted, double percentile) {
		if (sorted.length == 0) {
			return Double.NaN;
		}
		int rank = (int) Math.ceil(percentile / 100 * sorted.length);
		return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
	}

	static long[] sorted(long[] samples) {
		long[] copy = samples.clone();
		Arrays.sort(copy);
		return copy;
	}

}
