/**
 * A web shop that sells limited stock from several instances, with the stock decrement
 * under {@code @Lockable}.
 */
@NullMarked
package io.github.distributelock.sample;

import org.jspecify.annotations.NullMarked;
