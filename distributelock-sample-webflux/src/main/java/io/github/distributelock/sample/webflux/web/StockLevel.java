package io.github.distributelock.sample.webflux.web;

/**
 * The body of a stock reset.
 *
 * @param stock the new stock of the product
 * @since 1.0.0
 */
public record StockLevel(int stock) {

}
