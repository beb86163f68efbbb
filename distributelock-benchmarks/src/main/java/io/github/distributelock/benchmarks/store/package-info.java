/**
 * The stores of a run: the servers started on loopback ports, the tables the JDBC
 * libraries need, and the instruments that read what a library did there (commands,
 * fsyncs, statements, keys, znodes and rows).
 */
@NullMarked
package io.github.distributelock.benchmarks.store;

import org.jspecify.annotations.NullMarked;
