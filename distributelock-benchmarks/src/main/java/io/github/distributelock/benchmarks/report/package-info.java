/**
 * Writes {@code docs/benchmarks.md} and its chart from the result files of a run, and
 * judges the targets.
 */
@NullMarked
package io.github.distributelock.benchmarks.report;

import org.jspecify.annotations.NullMarked;
