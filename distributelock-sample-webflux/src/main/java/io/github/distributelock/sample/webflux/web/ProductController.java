package io.github.distributelock.sample.webflux.web;

import io.github.distributelock.sample.webflux.shop.OrderReceipt;
import io.github.distributelock.sample.webflux.shop.ProductStock;
import io.github.distributelock.sample.webflux.shop.StockService;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * Shows a product's stock, streams its orders, and resets them for a new demo.
 */
@RestController
@RequestMapping("/products/{id}")
class ProductController {

	private final StockService stockService;

	ProductController(StockService stockService) {
		this.stockService = stockService;
	}

	@GetMapping
	Mono<ProductStock> product(@PathVariable long id) {
		return this.stockService.product(id);
	}

	@GetMapping(path = "/orders", produces = MediaType.APPLICATION_NDJSON_VALUE)
	Flux<OrderReceipt> orders(@PathVariable long id) {
		return this.stockService.orders(id);
	}

	@PutMapping("/stock")
	Mono<ProductStock> resetStock(@PathVariable long id, @RequestBody StockLevel level) {
		if (level.stock() < 0) {
			return Mono.error(new ResponseStatusException(HttpStatus.BAD_REQUEST, "The stock cannot be negative"));
		}
		return this.stockService.resetStock(id, level.stock());
	}

}
