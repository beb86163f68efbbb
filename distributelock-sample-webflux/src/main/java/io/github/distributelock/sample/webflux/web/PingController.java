package io.github.distributelock.sample.webflux.web;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Answers {@code GET /ping} with {@code pong}, on the event loop: it is answered at once
 * while orders wait for their locks, which they do without holding a thread.
 */
@RestController
class PingController {

	@GetMapping("/ping")
	String ping() {
		return "pong";
	}

}
