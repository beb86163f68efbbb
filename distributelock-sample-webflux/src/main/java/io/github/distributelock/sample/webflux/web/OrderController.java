package io.github.distributelock.sample.webflux.web;

import io.github.distributelock.sample.webflux.shop.OrderReceipt;
import io.github.distributelock.sample.webflux.shop.OrderService;
import io.github.distributelock.sample.webflux.shop.Product;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Takes orders: {@code POST /orders?token=...} with the product as the body, such as
 * {@code {"id": 1}}. WebFlux subscribes to the returned {@code Mono}, which takes the
 * locks; while it waits for one, the event loop serves other requests.
 */
@RestController
class OrderController {

	private final OrderService orderService;

	OrderController(OrderService orderService) {
		this.orderService = orderService;
	}

	@PostMapping("/orders")
	@ResponseStatus(HttpStatus.CREATED)
	Mono<OrderReceipt> createOrder(@RequestBody Product product, @RequestParam String token) {
		return this.orderService.createOrder(product, token);
	}

}
