package io.github.distributelock.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.sample.demo.ShopClient.Purchase;

/**
 * A crowd of buyers ordering the same product at once, spread over several shops.
 *
 */
final class Buyers {

	private Buyers() {
	}

	/**
	 * Lets {@code count} buyers order one unit each, at most {@code concurrency} at a
	 * time, buyer {@code i} at shop {@code i % shops.size()}.
	 * @param shops the shops to spread the buyers over
	 * @param productId the product every buyer orders
	 * @param count how many buyers
	 * @param concurrency how many buyers order at the same time
	 * @param timeout how long all of them may take; buyers still waiting then count as
	 * failed
	 * @return how many buyers got each answer
	 * @throws InterruptedException if interrupted while the buyers order
	 */
	static Map<Purchase, Integer> buy(List<ShopClient> shops, long productId, int count, int concurrency,
			Duration timeout) throws InterruptedException {
		List<Callable<Purchase>> buyers = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			ShopClient shop = shops.get(i % shops.size());
			String token = "buyer-" + i;
			buyers.add(() -> shop.buy(productId, token));
		}
		Map<Purchase, Integer> outcomes = new EnumMap<>(Purchase.class);
		for (Purchase purchase : Purchase.values()) {
			outcomes.put(purchase, 0);
		}
		ExecutorService executor = Executors.newFixedThreadPool(concurrency);
		try {
			for (Future<Purchase> future : executor.invokeAll(buyers, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
				outcomes.merge(outcome(future), 1, Integer::sum);
			}
		}
		finally {
			executor.shutdownNow();
		}
		return outcomes;
	}

	private static Purchase outcome(Future<Purchase> future) throws InterruptedException {
		try {
			return future.get();
		}
		catch (ExecutionException | CancellationException ex) {
			return Purchase.FAILED;
		}
	}

}
