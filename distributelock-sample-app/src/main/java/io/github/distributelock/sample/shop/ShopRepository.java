package io.github.distributelock.sample.shop;

import java.util.Objects;
import java.util.Optional;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/**
 * The SQL of the shop: products with their stock, and orders.
 *
 */
@Repository
class ShopRepository {

	private final JdbcClient jdbc;

	ShopRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	Optional<Integer> findStock(long productId) {
		return this.jdbc.sql("SELECT stock FROM product WHERE id = ?").param(productId).query(Integer.class).optional();
	}

	void updateStock(long productId, int stock) {
		this.jdbc.sql("UPDATE product SET stock = ? WHERE id = ?").params(stock, productId).update();
	}

	long insertOrder(long productId, String token) {
		KeyHolder keyHolder = new GeneratedKeyHolder();
		this.jdbc.sql("INSERT INTO shop_order (product_id, token) VALUES (?, ?)")
			.params(productId, token)
			.update(keyHolder, "id");
		return Objects.requireNonNull(keyHolder.getKeyAs(Long.class), "generated order id");
	}

	void deleteOrders(long productId) {
		this.jdbc.sql("DELETE FROM shop_order WHERE product_id = ?").param(productId).update();
	}

	Optional<ProductStock> findProduct(long productId) {
		return this.jdbc.sql("""
				SELECT p.id, p.name, p.stock, (SELECT COUNT(*) FROM shop_order o WHERE o.product_id = p.id) AS orders
				FROM product p WHERE p.id = ?""").param(productId).query(ProductStock.class).optional();
	}

}
