package io.github.distributelock.sample.webflux;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The web shop on WebFlux: several instances share one Redis, which holds both the locks
 * and the stock, and {@code @Lockable} on reactive methods keeps them from selling more
 * than the stock without blocking an event loop.
 *
 * @since 1.0.0
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ReactiveShopApplication {

	/**
	 * Starts the shop.
	 * @param args the command line arguments, such as {@code --server.port=8081}
	 */
	public static void main(String[] args) {
		SpringApplication.run(ReactiveShopApplication.class, args);
	}

}
