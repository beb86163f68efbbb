/**
 * Orders and stock: the locked order flow and its deliberately non-atomic stock
 * decrement.
 */
@NullMarked
package io.github.distributelock.sample.shop;

import org.jspecify.annotations.NullMarked;
