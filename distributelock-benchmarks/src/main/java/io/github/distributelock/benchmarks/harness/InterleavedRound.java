package io.github.distributelock.benchmarks.harness;

/**
 * One library's uncontended latency in one round of the interleaved run.
 *
 * @param library the library
 * @param round the round, from 1
 * @param samples how many cycles were timed
 * @param p50Micros the median
 * @param p99Micros the 99th percentile
 * @param meanMicros the mean
 * @param warmupMillis how long its JVM warmed up, until the JIT compiler settled;
 * negative if it had not settled by the longest warm-up
 */
public record InterleavedRound(String library, int round, long samples, double p50Micros, double p99Micros,
		double meanMicros, long warmupMillis) {

}
