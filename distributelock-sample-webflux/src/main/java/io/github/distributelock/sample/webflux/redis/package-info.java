/**
 * An embedded Redis started by the first instance when none is running.
 */
@NullMarked
package io.github.distributelock.sample.webflux.redis;

import org.jspecify.annotations.NullMarked;
