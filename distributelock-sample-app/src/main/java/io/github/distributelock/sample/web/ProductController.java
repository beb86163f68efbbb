package io.github.distributelock.sample.web;

import io.github.distributelock.sample.shop.ProductStock;
import io.github.distributelock.sample.shop.StockService;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * Shows a product's stock and orders, and resets them for a new demo.
 *
 */
@RestController
@RequestMapping("/products/{id}")
class ProductController {

	private final StockService stockService;

	ProductController(StockService stockService) {
		this.stockService = stockService;
	}

	@GetMapping
	ProductStock product(@PathVariable long id) {
		return this.stockService.product(id);
	}

	@PutMapping("/stock")
	ProductStock resetStock(@PathVariable long id, @RequestBody StockLevel level) {
		if (level.stock() < 0) {
			throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "The stock cannot be negative");
		}
		return this.stockService.resetStock(id, level.stock());
	}

}
