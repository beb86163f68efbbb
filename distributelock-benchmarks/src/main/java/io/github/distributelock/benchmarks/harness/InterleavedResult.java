package io.github.distributelock.benchmarks.harness;

/**
 * One library's uncontended latency from the interleaved run.
 *
 * @param library the library
 * @param samples how many cycles were timed
 * @param p50Micros the median
 * @param p99Micros the 99th percentile
 * @param meanMicros the mean
 */
record InterleavedResult(String library, long samples, double p50Micros, double p99Micros, double meanMicros) {

}
