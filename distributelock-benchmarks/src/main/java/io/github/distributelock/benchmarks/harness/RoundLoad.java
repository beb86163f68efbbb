package io.github.distributelock.benchmarks.harness;

/**
 * The machine's load average at the start and at the end of one round of a part.
 *
 * @param round the round, from 1
 * @param atStart the load average when the round started
 * @param atEnd the load average when it ended
 */
public record RoundLoad(int round, String atStart, String atEnd) {

}
