package io.github.distributelock.sample.webflux.shop;

/**
 * A product with its stock and the number of orders placed for it. Without oversell, the
 * stock set at the last reset is {@code stock + orders}.
 *
 * @param id the product's id
 * @param name the product's name
 * @param stock the units left
 * @param orders the orders placed since the last reset
 * @since 1.0.0
 */
public record ProductStock(long id, String name, int stock, long orders) {

}
