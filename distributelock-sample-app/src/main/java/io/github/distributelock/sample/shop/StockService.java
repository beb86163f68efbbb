package io.github.distributelock.sample.shop;

import java.time.Duration;

import io.github.distributelock.Lockable;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The stock of the products. Each sale reads the stock and then writes it back, which is
 * only correct while one sale of a product runs at a time: the {@link Lockable @Lockable}
 * on {@link #minusStock} makes it so across every instance.
 *
 * @since 1.0.0
 */
@Service
public class StockService {

	private final ShopRepository repository;

	private final Duration saleDelay;

	StockService(ShopRepository repository, ShopProperties properties) {
		this.repository = repository;
		this.saleDelay = properties.getSaleDelay();
	}

	/**
	 * Takes one unit of the product from the stock and records the order.
	 * <p>
	 * The decrement is deliberately a read, then a write of the value read minus one: an
	 * atomic {@code UPDATE ... SET stock = stock - 1 WHERE stock > 0} would not need a
	 * lock, and this shop exists to show what the lock protects. Two sales that overlap
	 * both read the same stock, both sell, and one decrement is lost;
	 * {@code sample.shop.sale-delay} widens that window. The lock is taken before the
	 * transaction begins and released after it commits.
	 * @param product the product to sell
	 * @param token the buyer's token, stored with the order
	 * @return the order
	 * @throws SoldOutException if no stock is left
	 * @throws UnknownProductException if there is no such product
	 */
	@Transactional
	@Lockable(key = "product.minusStock", waitTimeMs = 5000, fields = "product.id",
			failMsg = "Too many buyers for this product, retry|2201")
	public OrderReceipt minusStock(Product product, String token) {
		int stock = this.repository.findStock(product.id())
			.orElseThrow(() -> new UnknownProductException(product.id()));
		if (stock <= 0) {
			throw new SoldOutException(product.id());
		}
		awaitSlowWork();
		this.repository.updateStock(product.id(), stock - 1);
		long orderId = this.repository.insertOrder(product.id(), token);
		return new OrderReceipt(orderId, product.id(), token, stock - 1);
	}

	private void awaitSlowWork() {
		if (this.saleDelay.compareTo(Duration.ZERO) > 0) {
			try {
				Thread.sleep(this.saleDelay.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted during a sale", ex);
			}
		}
	}

	/**
	 * Sets the stock of a product and deletes its orders, so a demo can start again. It
	 * takes the same lock as {@link #minusStock}, so no sale runs across the reset.
	 * @param productId the product
	 * @param stock the new stock
	 * @return the product after the reset
	 * @throws UnknownProductException if there is no such product
	 */
	@Transactional
	@Lockable(key = "product.minusStock", waitTimeMs = 5000, fields = "productId",
			failMsg = "Too many buyers for this product, retry|2201")
	public ProductStock resetStock(long productId, int stock) {
		if (this.repository.findStock(productId).isEmpty()) {
			throw new UnknownProductException(productId);
		}
		this.repository.deleteOrders(productId);
		this.repository.updateStock(productId, stock);
		return product(productId);
	}

	/**
	 * Returns a product with its stock and the number of its orders.
	 * @param productId the product
	 * @return the product
	 * @throws UnknownProductException if there is no such product
	 */
	@Transactional(readOnly = true)
	public ProductStock product(long productId) {
		return this.repository.findProduct(productId).orElseThrow(() -> new UnknownProductException(productId));
	}

}
