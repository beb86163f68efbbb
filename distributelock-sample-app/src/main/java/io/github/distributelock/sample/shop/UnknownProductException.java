package io.github.distributelock.sample.shop;

/**
 * Thrown when a request names a product the shop does not have.
 *
 * @since 1.0.0
 */
public class UnknownProductException extends RuntimeException {

	/**
	 * Creates an exception for a product that does not exist.
	 * @param productId the product
	 */
	public UnknownProductException(long productId) {
		super("There is no product " + productId);
	}

}
