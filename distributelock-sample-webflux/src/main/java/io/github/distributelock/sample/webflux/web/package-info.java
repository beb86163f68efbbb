/**
 * The HTTP endpoints of the shop, reactive controllers on WebFlux, and the mapping of its
 * failures to HTTP statuses.
 */
@NullMarked
package io.github.distributelock.sample.webflux.web;

import org.jspecify.annotations.NullMarked;
