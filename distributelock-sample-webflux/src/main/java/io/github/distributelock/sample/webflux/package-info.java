/**
 * The web shop of the servlet sample on WebFlux and reactive Redis: the order and the
 * stock decrement return {@code Mono}s under {@code @Lockable}, and no thread waits for a
 * lock.
 */
@NullMarked
package io.github.distributelock.sample.webflux;

import org.jspecify.annotations.NullMarked;
