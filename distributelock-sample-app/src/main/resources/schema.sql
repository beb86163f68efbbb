-- Run by every instance at startup against the shared database: must be idempotent.
CREATE TABLE IF NOT EXISTS product (
	id BIGINT PRIMARY KEY,
	name VARCHAR(100) NOT NULL,
	stock INT NOT NULL
);

CREATE TABLE IF NOT EXISTS shop_order (
	id BIGINT AUTO_INCREMENT PRIMARY KEY,
	product_id BIGINT NOT NULL REFERENCES product (id),
	token VARCHAR(100) NOT NULL,
	created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
);
