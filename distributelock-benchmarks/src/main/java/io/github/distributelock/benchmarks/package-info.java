/**
 * JMH benchmarks and harnesses that measure distributelock against the raw-client floor
 * and against peer libraries, on servers started on loopback ports.
 */
@NullMarked
package io.github.distributelock.benchmarks;

import org.jspecify.annotations.NullMarked;
