package io.github.distributelock.sample.webflux;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.sample.webflux.redis.EmbeddedRedisServer;
import io.github.distributelock.sample.webflux.shop.OrderReceipt;
import io.github.distributelock.sample.webflux.shop.ProductStock;
import io.github.distributelock.sample.webflux.web.ApiError;
import io.github.distributelock.sample.webflux.web.StockLevel;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The reactive shop over HTTP, on an embedded Redis that the application starts on a free
 * port. The build runs it with one event-loop thread
 * ({@code reactor.netty.ioWorkerCount=1}), shared by the server and the test's clients.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "server.address=127.0.0.1", "sample.shop.sale-delay=20ms" })
@AutoConfigureWebTestClient(timeout = "30s")
@DirtiesContext
class ReactiveShopApplicationTests {

	private static final int REDIS_PORT = freePort();

	private static final long PRODUCT_ID = 1;

	private static final String PRODUCT_NAME = "Limited edition sneakers";

	private static final int STOCK = 10;

	@LocalServerPort
	private int port;

	@Autowired
	private WebTestClient client;

	@Autowired
	private DistributeLock distributeLock;

	@Autowired
	private ReactiveStringRedisTemplate redis;

	@Autowired
	private EmbeddedRedisServer embeddedRedis;

	@DynamicPropertySource
	static void redisPort(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.port", () -> REDIS_PORT);
	}

	@BeforeEach
	void resetStock() {
		this.client.put()
			.uri("/products/{id}/stock", PRODUCT_ID)
			.bodyValue(new StockLevel(STOCK))
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(ProductStock.class)
			.isEqualTo(new ProductStock(PRODUCT_ID, PRODUCT_NAME, STOCK, 0));
	}

	@Test
	void startsAnEmbeddedRedisWhenNoneListens() {
		assertThat(this.embeddedRedis.isRunning()).isTrue();
	}

	@Test
	void concurrentBuyersNeverOversellAndTheOrdersStreamShowsEveryMovement() {
		int buyers = 40;
		WebClient webClient = WebClient.create("http://127.0.0.1:" + this.port);
		List<Response> responses = Flux.range(0, buyers)
			.flatMap((buyer) -> order(webClient, PRODUCT_ID, "buyer-" + buyer), buyers)
			.collectList()
			.block(Duration.ofSeconds(60));
		assertThat(responses).filteredOn((response) -> response.status() == 201).hasSize(STOCK);
		assertThat(responses).filteredOn((response) -> response.status() == 409)
			.hasSize(buyers - STOCK)
			.allSatisfy((response) -> assertThat(response.error())
				.isEqualTo(new ApiError("3001", "Product " + PRODUCT_ID + " is sold out")));
		assertThat(product()).isEqualTo(new ProductStock(PRODUCT_ID, PRODUCT_NAME, 0, STOCK));
		List<OrderReceipt> orders = this.client.get()
			.uri("/products/{id}/orders", PRODUCT_ID)
			.accept(MediaType.APPLICATION_NDJSON)
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(OrderReceipt.class)
			.getResponseBody()
			.collectList()
			.block(Duration.ofSeconds(30));
		assertThat(orders).extracting(OrderReceipt::stockLeft).containsExactly(9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
		assertThat(orders).extracting(OrderReceipt::orderId).doesNotHaveDuplicates().isSorted();
		assertThat(orders).extracting(OrderReceipt::token)
			.doesNotHaveDuplicates()
			.allMatch((token) -> token.startsWith("buyer-"));
	}

	@Test
	void ordersWhoseLocksAreHeldElsewhereGet409WithTheCodeAndMessageOfTheirFailMsg() throws Exception {
		WebClient webClient = WebClient.create("http://127.0.0.1:" + this.port);
		List<Response> responses;
		try (LockHandle order = holdElsewhere("order.addOder_" + PRODUCT_ID + "_held-token");
				LockHandle stock = holdElsewhere("product.minusStock_" + PRODUCT_ID)) {
			// Both wait 5 s at once: one for its order lock, the other for the stock's
			responses = Flux
				.merge(order(webClient, PRODUCT_ID, "held-token"), order(webClient, PRODUCT_ID, "other-token"))
				.collectList()
				.block(Duration.ofSeconds(30));
		}
		assertThat(responses).containsExactlyInAnyOrder(
				new Response(409, new ApiError("2101", "This order is already being placed, do not submit it twice")),
				new Response(409, new ApiError("2201", "Too many buyers for this product, retry")));
		assertThat(product()).isEqualTo(new ProductStock(PRODUCT_ID, PRODUCT_NAME, STOCK, 0));
	}

	/**
	 * Issue 15's finding, over HTTP: an order that waits for a lock does not hold the
	 * event loop, so its only thread answers another request meanwhile.
	 */
	@Test
	void theOneEventLoopThreadAnswersPingWhileAnOrderWaitsForALockHeldElsewhere() throws Exception {
		WebClient webClient = WebClient.create("http://127.0.0.1:" + this.port);
		CompletableFuture<Response> waiting;
		try (LockHandle held = holdElsewhere("product.minusStock_" + PRODUCT_ID)) {
			waiting = order(webClient, PRODUCT_ID, "waiting-token").toFuture();
			// It holds its order lock, so it waits for the product's
			await().atMost(Duration.ofSeconds(10))
				.until(() -> lockedInStore("order.addOder_" + PRODUCT_ID + "_waiting-token"));
			this.client.get().uri("/ping").exchange().expectStatus().isOk().expectBody(String.class).isEqualTo("pong");
			assertThat(waiting).isNotDone();
			assertThat(eventLoopThreads()).as("threads of Reactor Netty, with -Dreactor.netty.ioWorkerCount=1")
				.hasSize(1);
		}
		assertThat(waiting.get(30, TimeUnit.SECONDS).status()).isEqualTo(201);
		assertThat(product()).isEqualTo(new ProductStock(PRODUCT_ID, PRODUCT_NAME, STOCK - 1, 1));
		assertThat(lockedInStore("product.minusStock_" + PRODUCT_ID)).isFalse();
	}

	@Test
	void anOrderForAnUnknownProductGetsA404() {
		this.client.post()
			.uri("/orders?token={token}", "token")
			.bodyValue(Map.of("id", 42))
			.exchange()
			.expectStatus()
			.isNotFound()
			.expectBody(ApiError.class)
			.isEqualTo(new ApiError("3002", "There is no product 42"));
	}

	@Test
	void healthShowsTheLockStoreUp() {
		this.client.get()
			.uri("/actuator/health")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.components.distributeLock.status")
			.isEqualTo("UP")
			.jsonPath("$.components.distributeLock.details.backend")
			.isEqualTo("redis")
			.jsonPath("$.components.redis.status")
			.isEqualTo("UP");
	}

	private static Mono<Response> order(WebClient webClient, long productId, String token) {
		return webClient.post()
			.uri("/orders?token={token}", token)
			.bodyValue(Map.of("id", productId))
			.exchangeToMono((response) -> response.statusCode().is4xxClientError()
					? response.bodyToMono(ApiError.class)
						.map((error) -> new Response(response.statusCode().value(), error))
					: response.releaseBody().thenReturn(new Response(response.statusCode().value(), null)));
	}

	private ProductStock product() {
		return this.client.get()
			.uri("/products/{id}", PRODUCT_ID)
			.exchange()
			.expectStatus()
			.isOk()
			.returnResult(ProductStock.class)
			.getResponseBody()
			.blockFirst(Duration.ofSeconds(30));
	}

	/** A lock taken by another owner than the application's requests. */
	private LockHandle holdElsewhere(String key) throws InterruptedException {
		return this.distributeLock.tryAcquire(key, Duration.ZERO, null).orElseThrow();
	}

	/** Whether Redis holds the lock of {@code key}, read from Redis itself. */
	private boolean lockedInStore(String key) {
		return Boolean.TRUE.equals(this.redis.hasKey("lock:" + key).block(Duration.ofSeconds(10)));
	}

	private static List<String> eventLoopThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.map(Thread::getName)
			.filter((name) -> name.startsWith("reactor-http-"))
			.toList();
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	record Response(int status, @Nullable ApiError error) {

	}

}
