package io.github.distributelock.benchmarks.ours;

import java.time.Duration;
import java.util.Map;

import io.github.distributelock.Lockable;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.benchmarks.library.Endpoints;
import io.github.distributelock.benchmarks.library.LibraryConfiguration;
import io.github.distributelock.benchmarks.library.LockLibrary;
import io.github.distributelock.core.LockBackend;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link Lockable @Lockable} method with two fields on a Spring proxy, in a Spring Boot
 * application configured the way a user's is: {@code distributelock.type=redis} on Spring
 * Boot's own Redis connection. Its lock key is {@code order.pay_<id>_<token>}, the key
 * {@link #directKey} builds for the direct call it is compared with.
 */
public final class LockableLibrary implements LockLibrary {

	/** What the {@code @Lockable} library runs with on Redis, for the page. */
	public static final LibraryConfiguration ON_REDIS = new LibraryConfiguration("distributelock",
			"a Spring Boot application (`DataRedisAutoConfiguration`, `DistributeLockAutoConfiguration`, "
					+ "`distributelock.type=redis`) and a service bean proxied by the starter's advisor",
			"the starter's defaults", "`@Lockable(key = \"order.pay\", fields = { \"order.id\", \"token\" })` "
					+ "on `pay(Order, String)`, called through the proxy");

	/** What the {@code @Lockable} library runs with on the in-memory backend. */
	public static final LibraryConfiguration IN_MEMORY = new LibraryConfiguration("distributelock",
			"the same application with an in-memory `LockBackend` bean, so no store round trip hides the cost of "
					+ "the engine and the interceptor",
			"the starter's defaults", "the same `@Lockable` method");

	static final String TOKEN = "abc";

	private final ConfigurableApplicationContext context;

	private final OrderService orders;

	/**
	 * Starts the application.
	 * @param endpoints the servers
	 * @param backend a backend bean to use instead of Redis, or {@code null}
	 */
	public LockableLibrary(Endpoints endpoints, @Nullable LockBackend backend) {
		SpringApplicationBuilder application = new SpringApplicationBuilder(LockableApplication.class)
			.web(WebApplicationType.NONE)
			.properties(Map.of("distributelock.type", "redis", "spring.data.redis.host", "127.0.0.1",
					"spring.data.redis.port", endpoints.redisPort(), "spring.main.banner-mode", "off"));
		if (backend != null) {
			// The starter backs off from Redis when the application defines a backend.
			application.initializers((context) -> context.getBeanFactory().registerSingleton("lockBackend", backend));
		}
		this.context = application.run();
		this.orders = this.context.getBean(OrderService.class);
	}

	public static String directKey(String key) {
		return "order.pay_" + key + "_" + TOKEN;
	}

	@Override
	public Release lock(String key, Duration wait) {
		throw new UnsupportedOperationException("@Lockable holds the lock only while its method runs");
	}

	@Override
	public void lockAndUnlock(String key) {
		this.orders.pay(new Order(key), TOKEN);
	}

	@Override
	public void close() {
		this.context.close();
	}

	/**
	 * What the annotated method takes; public, so that the field's SpEL compiles.
	 */
	public static final class Order {

		private final String id;

		Order(String id) {
			this.id = id;
		}

		public String getId() {
			return this.id;
		}

	}

	/**
	 * A service with a {@code @Lockable} method, proxied by the starter's advisor.
	 */
	public static class OrderService {

		@Lockable(key = "order.pay", fields = { "order.id", "token" })
		public void pay(Order order, String token) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class })
	static class LockableApplication {

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

	}

}
