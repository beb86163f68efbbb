package io.github.distributelock.benchmarks.harness;

import java.util.Arrays;
import java.util.List;

/**
 * A row of the interleaved table: one library, every round it ran, and the median of the
 * rounds' figures.
 *
 * @param library the library
 * @param p50Micros the median of the rounds' medians
 * @param p99Micros the median of the rounds' 99th percentiles
 * @param meanMicros the median of the rounds' means
 * @param rounds every round, in order
 */
public record InterleavedResult(String library, double p50Micros, double p99Micros, double meanMicros,
		List<InterleavedRound> rounds) {

	static InterleavedResult of(String library, List<InterleavedRound> rounds) {
		return new InterleavedResult(library,
				median(rounds.stream().mapToDouble(InterleavedRound::p50Micros).toArray()),
				median(rounds.stream().mapToDouble(InterleavedRound::p99Micros).toArray()),
				median(rounds.stream().mapToDouble(InterleavedRound::meanMicros).toArray()), List.copyOf(rounds));
	}

	private static double median(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return (sorted.length == 0) ? Double.NaN : sorted[sorted.length / 2];
	}

}
