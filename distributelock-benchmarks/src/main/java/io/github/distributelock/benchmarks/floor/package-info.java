/**
 * The raw-client floor of each store: the fewest round trips a lock can take there,
 * written with the store's client alone.
 */
@NullMarked
package io.github.distributelock.benchmarks.floor;

import org.jspecify.annotations.NullMarked;
