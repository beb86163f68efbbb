package io.github.distributelock.sample.webflux.shop;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of the shop.
 *
 * @since 1.0.0
 */
@ConfigurationProperties("sample.shop")
public class ShopProperties {

	/**
	 * Time a sale spends between reading the stock and writing it back, standing for slow
	 * work such as a payment call. It widens the window in which unlocked sales overlap;
	 * it is a timer, not a sleeping thread.
	 */
	private Duration saleDelay = Duration.ZERO;

	public Duration getSaleDelay() {
		return this.saleDelay;
	}

	public void setSaleDelay(Duration saleDelay) {
		this.saleDelay = saleDelay;
	}

}
