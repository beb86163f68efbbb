/**
 * The entry point of the benchmarks:
 * {@link io.github.distributelock.benchmarks.BenchmarkMain} starts the stores, runs the
 * harnesses of {@code harness} over the libraries of {@code ours}, {@code floor} and
 * {@code peer}, and writes the page with {@code report}.
 */
@NullMarked
package io.github.distributelock.benchmarks;

import org.jspecify.annotations.NullMarked;
