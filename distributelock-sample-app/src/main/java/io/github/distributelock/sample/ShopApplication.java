package io.github.distributelock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * A web shop that sells a product with limited stock. Several instances share one H2 file
 * database and one Redis, and {@code @Lockable} keeps them from selling more than the
 * stock.
 *
 * @since 1.0.0
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class ShopApplication {

	/**
	 * Starts the shop.
	 * @param args the command line arguments, such as {@code --server.port=8081}
	 */
	public static void main(String[] args) {
		keepH2ServerOnLoopback();
		SpringApplication.run(ShopApplication.class, args);
	}

	/**
	 * Makes the server that H2's {@code AUTO_SERVER} mode starts for the other instances
	 * listen on, and advertise, the loopback address rather than every interface. It must
	 * run before H2 is loaded, which reads the property once.
	 */
	public static void keepH2ServerOnLoopback() {
		if (System.getProperty("h2.bindAddress") == null) {
			System.setProperty("h2.bindAddress", "127.0.0.1");
		}
	}

}
