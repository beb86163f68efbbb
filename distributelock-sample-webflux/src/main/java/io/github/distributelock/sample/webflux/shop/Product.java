package io.github.distributelock.sample.webflux.shop;

/**
 * The product a buyer orders, as posted to {@code /orders}.
 *
 * @param id the product's id
 * @since 1.0.0
 */
public record Product(long id) {

}
