/**
 * Orders and stock in Redis: the locked order flow and its deliberately non-atomic stock
 * decrement, as publishers.
 */
@NullMarked
package io.github.distributelock.sample.webflux.shop;

import org.jspecify.annotations.NullMarked;
