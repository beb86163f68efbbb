package io.github.distributelock.sample.demo;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;

import io.github.distributelock.sample.shop.ProductStock;
import io.github.distributelock.sample.web.ApiError;
import io.github.distributelock.sample.web.StockLevel;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * Talks to one shop instance over HTTP.
 *
 */
final class ShopClient {

	private static final String SOLD_OUT = "3001";

	private final RestClient rest;

	ShopClient(HttpClient httpClient, URI baseUri, Duration readTimeout) {
		JdkClientHttpRequestFactory requestFactory = new JdkClientHttpRequestFactory(httpClient);
		requestFactory.setReadTimeout(readTimeout);
		this.rest = RestClient.builder().baseUrl(baseUri.toString()).requestFactory(requestFactory).build();
	}

	/**
	 * Orders one unit of a product and tells how the shop answered.
	 * @param productId the product
	 * @param token the buyer's token
	 * @return the outcome
	 */
	Purchase buy(long productId, String token) {
		return this.rest.post()
			.uri("/orders?token={token}", token)
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("id", productId))
			.exchangeForRequiredValue((request, response) -> {
				if (response.getStatusCode().isSameCodeAs(HttpStatus.CREATED)) {
					return Purchase.ORDERED;
				}
				if (response.getStatusCode().isSameCodeAs(HttpStatus.CONFLICT)) {
					ApiError error = response.bodyTo(ApiError.class);
					return (error != null && SOLD_OUT.equals(error.code())) ? Purchase.SOLD_OUT
							: Purchase.REFUSED_BY_LOCK;
				}
				return Purchase.FAILED;
			});
	}

	void resetStock(long productId, int stock) {
		this.rest.put()
			.uri("/products/{id}/stock", productId)
			.contentType(MediaType.APPLICATION_JSON)
			.body(new StockLevel(stock))
			.retrieve()
			.toBodilessEntity();
	}

	ProductStock product(long productId) {
		ProductStock product = this.rest.get().uri("/products/{id}", productId).retrieve().body(ProductStock.class);
		if (product == null) {
			throw new IllegalStateException("The shop returned no product " + productId);
		}
		return product;
	}

	/**
	 * How the shop answered one buyer.
	 */
	enum Purchase {

		/** The order was placed. */
		ORDERED,

		/** The product was sold out. */
		SOLD_OUT,

		/** A lock was not taken in time (409 with the lock's code). */
		REFUSED_BY_LOCK,

		/** Any other answer, or none in time. */
		FAILED

	}

}
