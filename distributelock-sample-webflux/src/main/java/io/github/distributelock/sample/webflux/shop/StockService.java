package io.github.distributelock.sample.webflux.shop;

import java.time.Duration;

import io.github.distributelock.Lockable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Service;

/**
 * The stock of the products. Each sale reads the stock and then writes it back, which is
 * only correct while one sale of a product runs at a time: the {@link Lockable @Lockable}
 * on {@link #minusStock} makes it so across every instance, for as long as the returned
 * {@code Mono} runs.
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
	 * atomic {@code HINCRBY} guarded by a script would not need a lock, and this shop
	 * exists to show what the lock protects. Two sales that overlap both read the same
	 * stock, both sell, and one decrement is lost; {@code sample.shop.sale-delay} widens
	 * that window. The lock is taken when the returned {@code Mono} is subscribed to and
	 * released when it ends; no thread waits for it meanwhile.
	 * @param product the product to sell
	 * @param token the buyer's token, stored with the order
	 * @return the order; fails with {@link SoldOutException} if no stock is left,
	 * {@link UnknownProductException} if there is no such product, and
	 * {@link io.github.distributelock.LockFailedException} if the lock was not taken in
	 * time
	 */
	@Lockable(key = "product.minusStock", waitTimeMs = 5000, fields = "product.id",
			failMsg = "Too many buyers for this product, retry|2201")
	public Mono<OrderReceipt> minusStock(Product product, String token) {
		return this.repository.findStock(product.id())
			.switchIfEmpty(Mono.error(() -> new UnknownProductException(product.id())))
			.flatMap((stock) -> {
				if (stock <= 0) {
					return Mono.error(new SoldOutException(product.id()));
				}
				return slowWork().then(this.repository.recordSale(product.id(), token, stock - 1));
			});
	}

	private Mono<Void> slowWork() {
		return this.saleDelay.isZero() ? Mono.empty() : Mono.delay(this.saleDelay).then();
	}

	/**
	 * Sets the stock of a product and deletes its orders, so a demo can start again. It
	 * takes the same lock as {@link #minusStock}, so no sale runs across the reset.
	 * @param productId the product
	 * @param stock the new stock
	 * @return the product after the reset; fails with {@link UnknownProductException} if
	 * there is no such product
	 */
	@Lockable(key = "product.minusStock", waitTimeMs = 5000, fields = "productId",
			failMsg = "Too many buyers for this product, retry|2201")
	public Mono<ProductStock> resetStock(long productId, int stock) {
		return this.repository.findStock(productId)
			.switchIfEmpty(Mono.error(() -> new UnknownProductException(productId)))
			.then(this.repository.resetStock(productId, stock))
			.then(product(productId));
	}

	/**
	 * Streams the orders of a product, oldest first, each with the stock it left. A
	 * {@code Flux} holds its lock from the subscription until its last element: the same
	 * lock as {@link #minusStock}, so no sale or reset changes the orders between the
	 * pages it reads, and sales wait until the stream ends.
	 * @param productId the product
	 * @return the orders since the last reset
	 */
	@Lockable(key = "product.minusStock", waitTimeMs = 5000, fields = "productId",
			failMsg = "Too many buyers for this product, retry|2201")
	public Flux<OrderReceipt> orders(long productId) {
		return this.repository.findOrders(productId);
	}

	/**
	 * Returns a product with its stock and the number of its orders.
	 * @param productId the product
	 * @return the product; fails with {@link UnknownProductException} if there is no such
	 * product
	 */
	public Mono<ProductStock> product(long productId) {
		return this.repository.findProduct(productId)
			.switchIfEmpty(Mono.error(() -> new UnknownProductException(productId)));
	}

}
