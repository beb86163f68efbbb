package io.github.distributelock.sample.webflux.shop;

/**
 * An order that was placed: one movement of the stock.
 *
 * @param orderId the id of the new order
 * @param productId the product ordered
 * @param token the buyer's token
 * @param stockLeft the stock of the product after this order
 * @since 1.0.0
 */
public record OrderReceipt(long orderId, long productId, String token, int stockLeft) {

}
