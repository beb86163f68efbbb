package io.github.distributelock.sample.shop;

/**
 * Thrown when an order finds no stock left.
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
