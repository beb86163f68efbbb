/**
 * Reactor adapters of the non-blocking lock API, used only where Reactor is on the class
 * path: {@link io.github.distributelock.reactive.ReactiveDistributeLock}.
 */
@NullMarked
package io.github.distributelock.reactive;

import org.jspecify.annotations.NullMarked;
