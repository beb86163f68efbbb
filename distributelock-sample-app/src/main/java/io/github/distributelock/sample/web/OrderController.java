package io.github.distributelock.sample.web;

import io.github.distributelock.sample.shop.OrderReceipt;
import io.github.distributelock.sample.shop.OrderService;
import io.github.distributelock.sample.shop.Product;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Takes orders: {@code POST /orders?token=...} with the product as the body, such as
 * {@code {"id": 1}}.
 *
 */
@RestController
class OrderController {

	private final OrderService orderService;

	OrderController(OrderService orderService) {
		this.orderService = orderService;
	}

	@PostMapping("/orders")
	@ResponseStatus(HttpStatus.CREATED)
	OrderReceipt createOrder(@RequestBody Product product, @RequestParam String token) {
		return this.orderService.createOrder(product, token);
	}

}
