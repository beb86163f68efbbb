package io.github.distributelock.benchmarks.harness;

import java.util.Comparator;
import java.util.List;

/**
 * The JDBC shards row: acquisitions per second on distinct keys with the lock table in
 * one database and in two, the median of the rounds and every round.
 *
 * @param threads the threads of each variant
 * @param oneDatabasePerSecond the median round's figure on one database
 * @param twoDatabasesPerSecond the same round's figure on two
 * @param rounds every round, in order
 */
public record ShardsResult(int threads, double oneDatabasePerSecond, double twoDatabasesPerSecond, List<Round> rounds) {

	static ShardsResult of(int threads, List<Round> rounds) {
		List<Round> sorted = rounds.stream().sorted(Comparator.comparingDouble(Round::ratio)).toList();
		Round median = sorted.get(sorted.size() / 2);
		return new ShardsResult(threads, median.oneDatabasePerSecond(), median.twoDatabasesPerSecond(),
				List.copyOf(rounds));
	}

	/**
	 * One round, both variants in one fresh JVM.
	 *
	 * @param round the round, from 1
	 * @param oneDatabasePerSecond acquisitions per second on one database
	 * @param twoDatabasesPerSecond acquisitions per second on two
	 * @param shardedFirst whether two databases were measured first
	 * @param warmupMillis how long the warm-up took, negative if the JIT compiler had not
	 * settled
	 * @param loadBefore the load average before the round
	 * @param loadAfter the load average after it
	 */
	public record Round(int round, double oneDatabasePerSecond, double twoDatabasesPerSecond, boolean shardedFirst,
			long warmupMillis, String loadBefore, String loadAfter) {

		/** Two databases' figure over one's. */
		public double ratio() {
			return this.twoDatabasesPerSecond / this.oneDatabasePerSecond;
		}

	}

}
