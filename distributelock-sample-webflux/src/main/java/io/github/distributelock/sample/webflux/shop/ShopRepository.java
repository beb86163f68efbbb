package io.github.distributelock.sample.webflux.shop;

import java.util.Map;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.ReactiveHashOperations;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Repository;

/**
 * The shop in Redis: a hash per product ({@code sample:product:<id>}, with its
 * {@code name} and {@code stock}), the list of its orders
 * ({@code sample:product:<id>:orders}, one JSON receipt each, oldest first), and a
 * counter of order ids. Every command is sent when the returned publisher is subscribed
 * to, not when the method is called.
 */
@Repository
class ShopRepository {

	private static final String NAME = "name";

	private static final String STOCK = "stock";

	private static final String ORDER_IDS = "sample:order-ids";

	/** Orders read per round trip when they are streamed. */
	private static final int PAGE = 100;

	private final ReactiveStringRedisTemplate redis;

	private final JsonMapper json;

	ShopRepository(ReactiveStringRedisTemplate redis, JsonMapper json) {
		this.redis = redis;
		this.json = json;
	}

	Mono<Integer> findStock(long productId) {
		return hash().get(productKey(productId), STOCK).map(Integer::valueOf);
	}

	/**
	 * Writes the stock back and records the order: separate commands, not a transaction,
	 * because the lock is what keeps two sales of a product apart.
	 */
	Mono<OrderReceipt> recordSale(long productId, String token, int stockLeft) {
		return hash().put(productKey(productId), STOCK, Integer.toString(stockLeft))
			.then(this.redis.opsForValue().increment(ORDER_IDS))
			.map((orderId) -> new OrderReceipt(orderId, productId, token, stockLeft))
			.flatMap((receipt) -> this.redis.opsForList()
				.rightPush(ordersKey(productId), this.json.writeValueAsString(receipt))
				.thenReturn(receipt));
	}

	Mono<Void> resetStock(long productId, int stock) {
		return this.redis.delete(ordersKey(productId))
			.then(hash().put(productKey(productId), STOCK, Integer.toString(stock)))
			.then();
	}

	/**
	 * Adds a product unless it exists: a later instance must not reset the stock sold.
	 */
	Mono<Boolean> addProductIfAbsent(long productId, String name, int stock) {
		String key = productKey(productId);
		return hash().putIfAbsent(key, NAME, name).then(hash().putIfAbsent(key, STOCK, Integer.toString(stock)));
	}

	Mono<ProductStock> findProduct(long productId) {
		return hash().entries(productKey(productId))
			.collectMap(Map.Entry::getKey, Map.Entry::getValue)
			.filter((fields) -> fields.containsKey(NAME) && fields.containsKey(STOCK))
			.zipWith(this.redis.opsForList().size(ordersKey(productId)), (fields, orders) -> new ProductStock(productId,
					fields.get(NAME), Integer.parseInt(fields.get(STOCK)), orders));
	}

	/** The orders of a product, oldest first, read a page per round trip. */
	Flux<OrderReceipt> findOrders(long productId) {
		String key = ordersKey(productId);
		return this.redis.opsForList()
			.size(key)
			.flatMapMany((size) -> Flux.range(0, (int) ((size + PAGE - 1) / PAGE)))
			.concatMap((page) -> this.redis.opsForList().range(key, (long) page * PAGE, (long) page * PAGE + PAGE - 1))
			.map((entry) -> this.json.readValue(entry, OrderReceipt.class));
	}

	private ReactiveHashOperations<String, String, String> hash() {
		return this.redis.opsForHash();
	}

	private static String productKey(long productId) {
		return "sample:product:" + productId;
	}

	private static String ordersKey(long productId) {
		return productKey(productId) + ":orders";
	}

}
