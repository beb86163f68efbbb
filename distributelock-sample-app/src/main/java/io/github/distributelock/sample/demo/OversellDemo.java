package io.github.distributelock.sample.demo;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.distributelock.sample.ShopApplication;
import io.github.distributelock.sample.demo.ShopClient.Purchase;
import io.github.distributelock.sample.shop.ProductStock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.FileSystemUtils;

/**
 * Shows what the distributed lock prevents: two shop instances share one database and
 * sell a product with little stock to a crowd of concurrent buyers, first with the lock
 * on (never oversold), then with {@code distributelock.enabled=false} (oversold).
 * Everything runs in this JVM on loopback ports chosen at run time, and is stopped and
 * deleted at the end.
 *
 * @since 1.0.0
 */
public final class OversellDemo {

	/** The product the buyers order, seeded by {@code data.sql}. */
	static final long PRODUCT_ID = 1;

	private static final int INSTANCES = 2;

	private static final int STOCK = 10;

	private static final int BUYERS = 200;

	private static final int CONCURRENCY = 32;

	/**
	 * A sale's slow work between reading and writing the stock: without it, unlocked
	 * sales on a fast machine overlap too rarely to oversell on every run.
	 */
	private static final Duration SALE_DELAY = Duration.ofMillis(20);

	private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration ROUND_TIMEOUT = Duration.ofMinutes(2);

	private static final Log logger = LogFactory.getLog(OversellDemo.class);

	private OversellDemo() {
	}

	/**
	 * Runs the demo with the lock on, then off, and logs one line for each.
	 * @param args ignored
	 * @throws Exception if the demo fails
	 */
	public static void main(String[] args) throws Exception {
		ShopApplication.keepH2ServerOnLoopback();
		Path databaseDirectory = Files.createTempDirectory("distributelock-oversell-demo");
		try {
			logger.info(BUYERS + " buyers, " + INSTANCES + " instances, stock " + STOCK + ":");
			for (boolean lockEnabled : new boolean[] { true, false }) {
				logger.info(run(lockEnabled, STOCK, BUYERS, databaseDirectory).summary());
			}
		}
		finally {
			FileSystemUtils.deleteRecursively(databaseDirectory);
		}
	}

	/**
	 * Runs one round: starts two shop instances on the database in
	 * {@code databaseDirectory}, sets the stock, lets the buyers order through both
	 * instances, reads the stock and the orders, and stops the instances.
	 * @param lockEnabled whether the distributed lock is on
	 * @param stock the stock to sell
	 * @param buyers how many buyers order one unit each
	 * @param databaseDirectory the directory of the H2 database
	 * @return what the round ended with
	 * @throws InterruptedException if interrupted while the buyers order
	 * @throws IOException if the database directory cannot be used
	 */
	public static OversellReport run(boolean lockEnabled, int stock, int buyers, Path databaseDirectory)
			throws InterruptedException, IOException {
		Files.createDirectories(databaseDirectory);
		HttpClient httpClient = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();
		try (ShopInstances instances = ShopInstances.start(INSTANCES, lockEnabled, SALE_DELAY, databaseDirectory)) {
			List<ShopClient> shops = instances.baseUris()
				.stream()
				.map((URI baseUri) -> new ShopClient(httpClient, baseUri, READ_TIMEOUT))
				.toList();
			shops.get(0).resetStock(PRODUCT_ID, stock);
			Map<Purchase, Integer> outcomes = Buyers.buy(shops, PRODUCT_ID, buyers, CONCURRENCY, ROUND_TIMEOUT);
			ProductStock product = shops.get(0).product(PRODUCT_ID);
			return new OversellReport(lockEnabled, stock, product.stock(), product.orders(),
					outcomes.get(Purchase.REFUSED_BY_LOCK), outcomes.get(Purchase.FAILED));
		}
	}

}
