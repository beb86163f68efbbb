package io.github.distributelock.sample.webflux.shop;

/**
 * The failure of an order that finds no stock left.
 *
 * @since 1.0.0
 */
public class SoldOutException extends RuntimeException {

	/**
	 * Creates an exception for a sold-out product.
	 * @param productId the product
	 */
	public SoldOutException(long productId) {
		super("Product " + productId + " is sold out");
	}

}
