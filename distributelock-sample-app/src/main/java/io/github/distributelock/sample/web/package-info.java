/**
 * The HTTP endpoints of the shop and the mapping of its failures to HTTP statuses.
 */
@NullMarked
package io.github.distributelock.sample.web;

import org.jspecify.annotations.NullMarked;
