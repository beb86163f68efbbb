package io.github.distributelock.benchmarks.harness;

import java.util.List;

/**
 * What a part of the run wrote: the load of each of its rounds, and its results.
 *
 * @param <T> the type of a result
 * @param rounds the rounds, in order
 * @param results the results, one per row of the page
 */
public record Measured<T>(List<RoundLoad> rounds, List<T> results) {

}
