package io.github.distributelock.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockHandle;
import io.github.distributelock.sample.redis.EmbeddedRedisServer;
import io.github.distributelock.sample.shop.OrderReceipt;
import io.github.distributelock.sample.shop.ProductStock;
import io.github.distributelock.sample.web.ApiError;
import io.github.distributelock.sample.web.StockLevel;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shop over HTTP, on an embedded Redis that the application starts on a free port and
 * an H2 file database in a temporary directory.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = "server.address=127.0.0.1")
@DirtiesContext
class ShopApplicationTests {

	private static final int REDIS_PORT = freePort();

	private static final long PRODUCT_ID = 1;

	private static final int STOCK = 10;

	@TempDir
	static Path databaseDirectory;

	@LocalServerPort
	private int port;

	@Autowired
	private DistributeLock distributeLock;

	@Autowired
	private EmbeddedRedisServer embeddedRedis;

	private RestClient rest;

	@DynamicPropertySource
	static void shopProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.port", () -> REDIS_PORT);
		registry.add("spring.datasource.url",
				() -> "jdbc:h2:file:" + databaseDirectory.resolve("shop") + ";AUTO_SERVER=TRUE");
	}

	@BeforeEach
	void resetStock() {
		JdkClientHttpRequestFactory requestFactory = new JdkClientHttpRequestFactory(
				HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build());
		requestFactory.setReadTimeout(Duration.ofSeconds(30));
		this.rest = RestClient.builder()
			.baseUrl("http://127.0.0.1:" + this.port)
			.requestFactory(requestFactory)
			.build();
		ProductStock product = this.rest.put()
			.uri("/products/{id}/stock", PRODUCT_ID)
			.contentType(MediaType.APPLICATION_JSON)
			.body(new StockLevel(STOCK))
			.retrieve()
			.body(ProductStock.class);
		assertThat(product).isEqualTo(new ProductStock(PRODUCT_ID, "Limited edition sneakers", STOCK, 0));
	}

	@Test
	void startsAnEmbeddedRedisWhenNoneListens() {
		assertThat(this.embeddedRedis.isRunning()).isTrue();
	}

	@Test
	void concurrentBuyersNeverOversell() throws Exception {
		int buyers = 40;
		List<Callable<Response>> orders = new ArrayList<>();
		for (int i = 0; i < buyers; i++) {
			String token = "buyer-" + i;
			orders.add(() -> order(PRODUCT_ID, token));
		}
		List<Response> responses = new ArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(16);
		try {
			for (Future<Response> response : executor.invokeAll(orders, 60, TimeUnit.SECONDS)) {
				responses.add(response.get());
			}
		}
		finally {
			executor.shutdownNow();
		}
		assertThat(responses).filteredOn((response) -> response.status() == 201).hasSize(STOCK);
		assertThat(responses).filteredOn((response) -> response.status() == 409)
			.hasSize(buyers - STOCK)
			.allSatisfy((response) -> assertThat(response.error())
				.isEqualTo(new ApiError("3001", "Product " + PRODUCT_ID + " is sold out")));
		assertThat(product()).isEqualTo(new ProductStock(PRODUCT_ID, "Limited edition sneakers", 0, STOCK));
	}

	@Test
	void anOrderWhoseLockIsHeldGetsA409WithTheCodeAndMessageOfItsFailMsg() throws Exception {
		try (LockHandle held = this.distributeLock
			.tryAcquire("order.addOder_" + PRODUCT_ID + "_held-token", Duration.ZERO, null)
			.orElseThrow()) {
			Response response = order(PRODUCT_ID, "held-token");
			assertThat(response.status()).isEqualTo(409);
			assertThat(response.error())
				.isEqualTo(new ApiError("2101", "This order is already being placed, do not submit it twice"));
		}
		assertThat(product().stock()).isEqualTo(STOCK);
		assertThat(order(PRODUCT_ID, "held-token").status()).isEqualTo(201);
	}

	@Test
	void anOrderWhoseStockLockIsHeldGetsA409WithTheCodeAndMessageOfItsFailMsg() throws Exception {
		try (LockHandle held = this.distributeLock.tryAcquire("product.minusStock_" + PRODUCT_ID, Duration.ZERO, null)
			.orElseThrow()) {
			Response response = order(PRODUCT_ID, "another-token");
			assertThat(response.status()).isEqualTo(409);
			assertThat(response.error()).isEqualTo(new ApiError("2201", "Too many buyers for this product, retry"));
		}
		assertThat(product()).isEqualTo(new ProductStock(PRODUCT_ID, "Limited edition sneakers", STOCK, 0));
	}

	@Test
	void anOrderForAnUnknownProductGetsA404() {
		Response response = order(42, "token");
		assertThat(response.status()).isEqualTo(404);
		assertThat(response.error()).isEqualTo(new ApiError("3002", "There is no product 42"));
	}

	@Test
	void anOrderReturnsItsReceipt() {
		OrderReceipt receipt = this.rest.post()
			.uri("/orders?token={token}", "receipt-token")
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("id", PRODUCT_ID))
			.retrieve()
			.body(OrderReceipt.class);
		assertThat(receipt).isNotNull();
		assertThat(receipt.productId()).isEqualTo(PRODUCT_ID);
		assertThat(receipt.token()).isEqualTo("receipt-token");
		assertThat(receipt.stockLeft()).isEqualTo(STOCK - 1);
	}

	@Test
	void actuatorShowsTheLockStoreTheHeldLocksAndTheLockMetrics() throws Exception {
		assertThat(order(PRODUCT_ID, "observed-token").status()).isEqualTo(201);
		DocumentContext health = JsonPath.parse(get("/actuator/health"));
		assertThat(health.<String>read("$.components.distributeLock.status")).isEqualTo("UP");
		assertThat(health.<String>read("$.components.distributeLock.details.backend")).isEqualTo("redis");
		assertThat(health.<Number>read("$.components.distributeLock.details.roundTripMs").doubleValue()).isPositive();
		try (LockHandle held = this.distributeLock.tryAcquire("product.minusStock_" + PRODUCT_ID, Duration.ZERO, null)
			.orElseThrow()) {
			DocumentContext locks = JsonPath.parse(get("/actuator/distributelocks"));
			assertThat(locks.<List<Object>>read("$.locks")).hasSize(1);
			assertThat(locks.<String>read("$.locks[0].key")).isEqualTo("product.minusStock_" + PRODUCT_ID);
			assertThat(locks.<String>read("$.locks[0].backend")).isEqualTo("redis");
			assertThat(locks.<Number>read("$.locks[0].fencingToken").longValue()).isEqualTo(held.fencingToken());
			assertThat(locks.<String>read("$.locks[0].thread")).isEqualTo(Thread.currentThread().getName());
		}
		assertThat(JsonPath.parse(get("/actuator/distributelocks")).<List<Object>>read("$.locks")).isEmpty();
		String prometheus = get("/actuator/prometheus");
		// Tagged by the @Lockable keys, never by a product id or a token.
		assertThat(prometheus)
			.containsPattern("distributelock_acquire_seconds_count\\{backend=\"redis\",error=\"none\","
					+ "lock_kind=\"exclusive\",lock_name=\"order.addOder\",result=\"acquired\"} [1-9]")
			.containsPattern("distributelock_acquire_seconds_count\\{backend=\"redis\",error=\"none\","
					+ "lock_kind=\"exclusive\",lock_name=\"product.minusStock\",result=\"acquired\"} [1-9]")
			.containsPattern("distributelock_hold_seconds_count\\{backend=\"redis\",error=\"none\","
					+ "lock_kind=\"exclusive\",lock_name=\"product.minusStock\",outcome=\"released\"} [1-9]")
			.contains(
					"distributelock_hold_active_seconds_count{backend=\"redis\",lock_kind=\"exclusive\",lock_name=\"order.addOder\"} 0")
			.doesNotContain("observed-token")
			.doesNotContain("minusStock_" + PRODUCT_ID);
	}

	private String get(String path) {
		return this.rest.get().uri(path).retrieve().body(String.class);
	}

	private Response order(long productId, String token) {
		return this.rest.post()
			.uri("/orders?token={token}", token)
			.contentType(MediaType.APPLICATION_JSON)
			.body(Map.of("id", productId))
			.exchangeForRequiredValue((request, response) -> new Response(response.getStatusCode().value(),
					response.getStatusCode().is4xxClientError() ? response.bodyTo(ApiError.class) : null));
	}

	private ProductStock product() {
		return this.rest.get().uri("/products/{id}", PRODUCT_ID).retrieve().body(ProductStock.class);
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
