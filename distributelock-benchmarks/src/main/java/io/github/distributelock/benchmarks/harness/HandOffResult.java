package io.github.distributelock.benchmarks.harness;

import java.util.Comparator;
import java.util.List;

/**
 * A row of the JDBC hand-off table: how long after a release in one JVM a waiter in
 * another had the lock, on PostgreSQL, woken by the release's notification or by polling.
 *
 * @param variant {@code notify} or {@code poll}
 * @param p50Micros the median round's median hand-off
 * @param p90Micros the median round's 90th percentile
 * @param p99Micros the median round's 99th percentile
 * @param timeouts waits that timed out, summed over the rounds
 * @param rounds every round, in order
 */
public record HandOffResult(String variant, double p50Micros, double p90Micros, double p99Micros, long timeouts,
		List<Round> rounds) {

	static HandOffResult of(String variant, List<Round> rounds) {
		List<Round> sorted = rounds.stream().sorted(Comparator.comparingDouble(Round::p50Micros)).toList();
		Round median = sorted.get(sorted.size() / 2);
		return new HandOffResult(variant, median.p50Micros(), median.p90Micros(), median.p99Micros(),
				rounds.stream().mapToLong(Round::timeouts).sum(), List.copyOf(rounds));
	}

	/**
	 * One round of one variant, in two fresh JVMs.
	 *
	 * @param round the round, from 1
	 * @param samples the hand-offs measured
	 * @param p50Micros the median hand-off
	 * @param p90Micros the 90th percentile
	 * @param p99Micros the 99th percentile
	 * @param timeouts waits that timed out
	 * @param loadBefore the load average before the round
	 * @param loadAfter the load average after it
	 */
	public record Round(int round, int samples, double p50Micros, double p90Micros, double p99Micros, long timeouts,
			String loadBefore, String loadAfter) {

	}

}
