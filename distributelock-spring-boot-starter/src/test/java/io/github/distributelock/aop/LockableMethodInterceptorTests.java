package io.github.distributelock.aop;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.Lockable;
import io.github.distributelock.Lockable.OnBusy;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.redis.EmbeddedRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link Lockable @Lockable} on Spring beans, with the lock in a real redis-server.
 */
class LockableMethodInterceptorTests {

	@RegisterExtension
	static final EmbeddedRedisExtension redis = new EmbeddedRedisExtension();

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(
				AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributeLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
				"distributelock.type=redis")
		.withUserConfiguration(ShopConfiguration.class);

	@Test
	void holdsTheLockUnderTheOriginalStartersKeyDuringTheCall() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			StringRedisTemplate store = context.getBean(StringRedisTemplate.class);
			assertThat(orders.createOrder(new Product(42L), "abc")).isTrue();
			assertThat(store.hasKey("lock:order.addOder_42_abc")).isFalse();
		});
	}

	@Test
	void heldLockGivesTheFailureMessageAndCode() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			try (LockHandle held = takeInAnotherThread(context.getBean(DistributeLock.class), "order.addOder_42_abc")) {
				assertThatExceptionOfType(LockFailedException.class)
					.isThrownBy(() -> orders.createOrder(new Product(42L), "abc"))
					.satisfies((ex) -> {
						assertThat(ex.getMessage()).isEqualTo("Too many buyers, retry");
						assertThat(ex.getCode()).isEqualTo("2201");
						assertThat(ex.getLockKey()).isEqualTo("order.addOder_42_abc");
					});
				assertThat(orders.createOrder(new Product(43L), "abc")).isTrue();
			}
		});
	}

	@Test
	void defaultFailureMessageComesFromTheProperties() {
		this.contextRunner.withPropertyValues("distributelock.fail-message=Busy|9").run((context) -> {
			StockService stock = context.getBean(StockService.class);
			try (LockHandle held = takeInAnotherThread(context.getBean(DistributeLock.class), "product.minusStock_7")) {
				assertThatExceptionOfType(LockFailedException.class).isThrownBy(() -> stock.minusStock(new Product(7L)))
					.satisfies((ex) -> {
						assertThat(ex.getMessage()).isEqualTo("Busy");
						assertThat(ex.getCode()).isEqualTo("9");
					});
			}
		});
	}

	@Test
	void aSkippingMethodReturnsTheEmptyValueOfItsTypeWhenBusyAndRunsOnceFree() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			try (LockHandle held = takeInAnotherThread(context.getBean(DistributeLock.class), "order.export_8")) {
				assertThat(orders.export(8)).isEmpty();
				assertThat(orders.exportAsync(8)).isCompletedWithValue(null);
				assertThat(orders.exports()).isZero();
			}
			assertThat(orders.export(8)).contains("exported 8");
			assertThat(orders.exports()).isOne();
		});
	}

	@Test
	void waitsUpToWaitTimeThenFails() {
		this.contextRunner.run((context) -> {
			OrderService orders = context.getBean(OrderService.class);
			try (LockHandle held = takeInAnotherThread(context.getBean(DistributeLock.class), "order.wait_1")) {
				long start = System.nanoTime();
				assertThatExceptionOfType(LockFailedException.class).isThrownBy(() -> orders.waitBriefly(1));
				assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(300);
			}
		});
	}

	@Test
	void nestedCallsForTheSameKeyReenter() {
		this.contextRunner.run((context) -> {
			StringRedisTemplate store = context.getBean(StringRedisTemplate.class);
			assertThat(context.getBean(OuterService.class).outer(new Product(5L))).isTrue();
			assertThat(store.hasKey("lock:stock_5")).isFalse();
		});
	}

	@Test
	void lockIsReleasedOnlyAfterTheTransactionCommits() {
		this.contextRunner.run((context) -> {
			StockService stock = context.getBean(StockService.class);
			StringRedisTemplate store = context.getBean(StringRedisTemplate.class);
			stock.minusStock(new Product(1L));
			assertThat(stock.lockHeldAtCompletion()).isTrue();
			assertThat(stock.committed()).isTrue();
			assertThat(store.hasKey("lock:product.minusStock_1")).isFalse();
			assertThat(context.getBean(JdbcTemplate.class)
				.queryForObject("select stock from product where id = 1", Integer.class)).isEqualTo(9);
		});
	}

	@Test
	void lockIsReleasedAfterARollbackToo() {
		this.contextRunner.run((context) -> {
			StockService stock = context.getBean(StockService.class);
			StringRedisTemplate store = context.getBean(StringRedisTemplate.class);
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> stock.minusStockAndFail(2L));
			assertThat(stock.lockHeldAtCompletion()).isTrue();
			assertThat(store.hasKey("lock:product.minusStock_2")).isFalse();
		});
	}

	private static LockHandle takeInAnotherThread(DistributeLock lock, String key) throws Exception {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return lock.tryAcquire(key, Duration.ZERO, null).orElseThrow();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}).get(10, TimeUnit.SECONDS);
	}

	public record Product(Long id) {

		public Long getId() {
			return this.id;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableTransactionManagement
	static class ShopConfiguration {

		@Bean
		DataSource dataSource() {
			return new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2)
				.generateUniqueName(true)
				.addScript("classpath:io/github/distributelock/aop/shop.sql")
				.build();
		}

		@Bean
		JdbcTemplate jdbcTemplate(DataSource dataSource) {
			return new JdbcTemplate(dataSource);
		}

		@Bean
		PlatformTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		OrderService orderService(StringRedisTemplate store) {
			return new OrderService(store);
		}

		@Bean
		StockService stockService(JdbcTemplate jdbc, StringRedisTemplate store) {
			return new StockService(jdbc, store);
		}

		@Bean
		InnerService innerService(StringRedisTemplate store) {
			return new InnerService(store);
		}

		@Bean
		OuterService outerService(InnerService inner) {
			return new OuterService(inner);
		}

	}

	static class OrderService {

		private final StringRedisTemplate store;

		OrderService(StringRedisTemplate store) {
			this.store = store;
		}

		@Lockable(key = "order.addOder", waitTimeMs = 0, fields = { "product.id", "token" },
				failMsg = "Too many buyers, retry|2201")
		boolean createOrder(Product product, String token) {
			return this.store.hasKey("lock:order.addOder_" + product.getId() + "_" + token);
		}

		@Lockable(key = "order.wait", waitTimeMs = 300, fields = "id")
		void waitBriefly(long id) {
		}

		private final AtomicInteger exports = new AtomicInteger();

		/**
		 * Read through a method: the bean is a subclass proxy, whose own fields are
		 * empty.
		 */
		int exports() {
			return this.exports.get();
		}

		@Lockable(key = "order.export", fields = "id", onBusy = OnBusy.SKIP)
		Optional<String> export(long id) {
			this.exports.incrementAndGet();
			return Optional.of("exported " + id);
		}

		@Lockable(key = "order.export", fields = "id", onBusy = OnBusy.SKIP)
		CompletableFuture<String> exportAsync(long id) {
			this.exports.incrementAndGet();
			return CompletableFuture.completedFuture("exported " + id);
		}

	}

	static class StockService {

		private final JdbcTemplate jdbc;

		private final StringRedisTemplate store;

		private final AtomicReference<Boolean> lockHeldAfterCommit = new AtomicReference<>();

		private final AtomicReference<Boolean> committed = new AtomicReference<>();

		StockService(JdbcTemplate jdbc, StringRedisTemplate store) {
			this.jdbc = jdbc;
			this.store = store;
		}

		@Transactional
		@Lockable(key = "product.minusStock", fields = "product.id")
		void minusStock(Product product) {
			this.jdbc.update("update product set stock = stock - 1 where id = ?", product.getId());
			recordLockAtCompletion("lock:product.minusStock_" + product.getId());
		}

		@Transactional
		@Lockable(key = "product.minusStock", fields = "#p0")
		void minusStockAndFail(long id) {
			this.jdbc.update("update product set stock = stock - 1 where id = ?", id);
			recordLockAtCompletion("lock:product.minusStock_" + id);
			throw new IllegalStateException("payment refused");
		}

		Boolean lockHeldAtCompletion() {
			return this.lockHeldAfterCommit.get();
		}

		Boolean committed() {
			return this.committed.get();
		}

		private void recordLockAtCompletion(String redisKey) {
			TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

				@Override
				public void afterCompletion(int status) {
					StockService.this.committed.set(status == STATUS_COMMITTED);
					StockService.this.lockHeldAfterCommit.set(StockService.this.store.hasKey(redisKey));
				}

			});
		}

	}

	static class InnerService {

		private final StringRedisTemplate store;

		InnerService(StringRedisTemplate store) {
			this.store = store;
		}

		@Lockable(key = "stock", fields = "product.id")
		boolean inner(Product product) {
			return this.store.hasKey("lock:stock_" + product.getId());
		}

	}

	static class OuterService {

		private final InnerService inner;

		OuterService(InnerService inner) {
			this.inner = inner;
		}

		@Lockable(key = "stock", fields = "product.id")
		boolean outer(Product product) {
			return this.inner.inner(product) && this.inner.inner(product);
		}

	}

}
