package io.github.distributelock.benchmarks.harness;

/**
 * The machine's load average at the start and at the end of one part of a run.
 *
 * @param part the part
 * @param atStart the load average when it started
 * @param atEnd the load average when it ended
 */
public record PartLoad(String part, String atStart, String atEnd) {

}
