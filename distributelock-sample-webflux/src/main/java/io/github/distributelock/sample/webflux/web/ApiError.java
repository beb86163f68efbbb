package io.github.distributelock.sample.webflux.web;

import org.jspecify.annotations.Nullable;

/**
 * The body of a failed request.
 *
 * @param code the code of the failure, such as {@code "2201"}, if it has one
 * @param message what went wrong, for the buyer
 * @since 1.0.0
 */
public record ApiError(@Nullable String code, String message) {

}
