package io.github.distributelock.sample.web;

/**
 * The body of a stock reset.
 *
 * @param stock the new stock of the product
 * @author distributelock
 * @since 1.0.0
 */
public record StockLevel(int stock) {

}
