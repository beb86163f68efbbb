package io.github.distributelock.sample.webflux.shop;

import java.time.Duration;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Adds product 1 with a stock of 10 at startup, unless an instance did before.
 */
@Component
class ProductSeed implements ApplicationRunner {

	private final ShopRepository repository;

	ProductSeed(ShopRepository repository) {
		this.repository = repository;
	}

	/**
	 * Runs on the main thread before the shop is ready, where waiting for Redis is fine.
	 */
	@Override
	public void run(ApplicationArguments args) {
		this.repository.addProductIfAbsent(1, "Limited edition sneakers", 10).block(Duration.ofSeconds(30));
	}

}
