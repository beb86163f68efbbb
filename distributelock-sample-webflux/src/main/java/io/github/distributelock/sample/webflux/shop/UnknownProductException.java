package io.github.distributelock.sample.webflux.shop;

/**
 * The failure of a request that names a product the shop does not have.
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
