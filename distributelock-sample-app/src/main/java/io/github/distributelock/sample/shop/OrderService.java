package io.github.distributelock.sample.shop;

import io.github.distributelock.Lockable;

import org.springframework.stereotype.Service;

/**
 * Places orders, the way users of the original {@code cn.dslcode} starter did: the order
 * of one buyer's token runs once at a time, and the stock decrement it calls has a lock
 * of its own per product.
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
	 * The lock key is {@code order.addOder_<product id>_<token>} (the name, typo
	 * included, of the original starter's examples, so that both versions exclude each
	 * other during a rolling upgrade). Two submissions of the same token never run at the
	 * same time: the second waits for the first, and fails with code 2101 if the first
	 * still runs after five seconds.
	 * @param product the product to order
	 * @param token the buyer's token for this order
	 * @return the order
	 * @throws SoldOutException if no stock is left
	 * @throws io.github.distributelock.LockFailedException if a lock was not taken in
	 * time
	 */
	@Lockable(key = "order.addOder", waitTimeMs = 5000, fields = { "product.id", "token" },
			failMsg = "This order is already being placed, do not submit it twice|2101")
	public OrderReceipt createOrder(Product product, String token) {
		return this.stockService.minusStock(product, token);
	}

}
