package io.github.distributelock.sample.webflux.shop;

import io.github.distributelock.Lockable;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Service;

/**
 * Places orders as the servlet shop does, with publishers: the order of one buyer's token
 * runs once at a time, and the stock decrement it calls has a lock of its own per
 * product.
 *
 * @since 1.0.0
 */
@Service
public class OrderService {

	private final StockService stockService;

	OrderService(StockService stockService) {
		this.stockService = stockService;
	}

	/**
	 * Places an order for one unit of a product.
	 * <p>
	 * The lock key is {@code order.addOder_<product id>_<token>}, as in the servlet shop.
	 * It is taken when the returned {@code Mono} is subscribed to; inside it, the
	 * subscription of {@link StockService#minusStock} takes the product's lock.
	 * @param product the product to order
	 * @param token the buyer's token for this order
	 * @return the order; fails with {@link io.github.distributelock.LockFailedException}
	 * with code 2101 if the same order is still being placed after five seconds, and as
	 * {@link StockService#minusStock} does
	 */
	@Lockable(key = "order.addOder", waitTimeMs = 5000, fields = { "product.id", "token" },
			failMsg = "This order is already being placed, do not submit it twice|2101")
	public Mono<OrderReceipt> createOrder(Product product, String token) {
		return this.stockService.minusStock(product, token);
	}

}
