package io.github.distributelock.sample.demo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.distributelock.sample.ShopApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Several shop instances in this JVM, on free loopback ports, sharing one H2 file
 * database and one Redis: the first instance starts an embedded Redis on a free port and
 * the others connect to it. Closing stops them all, the first one last.
 *
 */
final class ShopInstances implements AutoCloseable {

	private final List<ConfigurableApplicationContext> contexts;

	private ShopInstances(List<ConfigurableApplicationContext> contexts) {
		this.contexts = contexts;
	}

	/**
	 * Starts the instances one after the other; if one fails, those already started are
	 * stopped.
	 * @param count how many instances to start
	 * @param lockEnabled the value of {@code distributelock.enabled}
	 * @param saleDelay the value of {@code sample.shop.sale-delay}
	 * @param databaseDirectory the directory of the shared H2 database
	 * @return the running instances
	 */
	static ShopInstances start(int count, boolean lockEnabled, Duration saleDelay, Path databaseDirectory) {
		// Command line arguments: they take precedence over application.properties.
		String[] arguments = { "--server.address=127.0.0.1", "--server.port=0", "--spring.data.redis.host=127.0.0.1",
				"--spring.data.redis.port=" + freePort(),
				"--spring.datasource.url=jdbc:h2:file:" + databaseDirectory.toAbsolutePath().resolve("shop")
						+ ";AUTO_SERVER=TRUE",
				"--distributelock.enabled=" + lockEnabled, "--sample.shop.sale-delay=" + saleDelay.toMillis() + "ms",
				"--spring.main.banner-mode=off", "--spring.main.log-startup-info=false", "--logging.level.root=warn",
				// The demo's own results.
				"--logging.level." + OversellDemo.class.getName() + "=info" };
		ShopInstances instances = new ShopInstances(new ArrayList<>());
		try {
			for (int i = 0; i < count; i++) {
				instances.contexts.add(new SpringApplicationBuilder(ShopApplication.class).run(arguments));
			}
			return instances;
		}
		catch (RuntimeException ex) {
			instances.closeAfter(ex);
			throw ex;
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The base URI of each instance, such as {@code http://127.0.0.1:41234}.
	 * @return the base URIs, in the order the instances were started
	 */
	List<URI> baseUris() {
		return this.contexts.stream()
			.map((context) -> ((WebServerApplicationContext) context).getWebServer().getPort())
			.map((port) -> URI.create("http://127.0.0.1:" + port))
			.toList();
	}

	@Override
	public void close() {
		RuntimeException failure = new IllegalStateException("Some shop instances did not stop cleanly");
		closeAfter(failure);
		if (failure.getSuppressed().length > 0) {
			throw failure;
		}
	}

	private void closeAfter(Throwable failure) {
		for (int i = this.contexts.size() - 1; i >= 0; i--) {
			try {
				this.contexts.get(i).close();
			}
			catch (RuntimeException ex) {
				failure.addSuppressed(ex);
			}
		}
		this.contexts.clear();
	}

}
