/**
 * The harnesses that measure: JMH for uncontended latency, and plain Java harnesses in
 * fresh JVMs for the interleaved latency, store commands, contention and scale; the
 * catalogue of libraries; the machine's load.
 */
@NullMarked
package io.github.distributelock.benchmarks.harness;

import org.jspecify.annotations.NullMarked;
