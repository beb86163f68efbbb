package io.github.distributelock.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.distributelock.DistributeLock;
import io.github.distributelock.LockFailedException;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockMode;
import io.github.distributelock.LockRequest;
import io.github.distributelock.Lockable;
import io.github.distributelock.autoconfigure.DistributeLockAutoConfiguration;
import io.github.distributelock.core.LockBackend;
import io.github.distributelock.core.MemoryLockBackend;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The kinds of lock through {@link Lockable @Lockable}: read/write, fair, permits, and a
 * key per element of a collection field, on the in-memory reference backend (each store
 * runs the same kinds in its own contract).
 */
class LockableKindsTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DistributeLockAutoConfiguration.class))
		.withPropertyValues("distributelock.type=redis")
		.withUserConfiguration(StockConfiguration.class);

	@Test
	void readersOfAKeyRunTogetherAndAWriterWaitsForThem() {
		this.contextRunner.run((context) -> {
			Stock stock = context.getBean(Stock.class);
			CountDownLatch bothReading = new CountDownLatch(2);
			CountDownLatch release = new CountDownLatch(1);
			CompletableFuture<Void> first = CompletableFuture.runAsync(() -> stock.read("p1", bothReading, release));
			CompletableFuture<Void> second = CompletableFuture.runAsync(() -> stock.read("p1", bothReading, release));
			assertThat(bothReading.await(10, TimeUnit.SECONDS)).as("two readers inside at once").isTrue();
			assertThatExceptionOfType(LockFailedException.class).isThrownBy(() -> stock.write("p1"));
			release.countDown();
			CompletableFuture.allOf(first, second).get(10, TimeUnit.SECONDS);
			assertThat(stock.write("p1")).isEqualTo("written");
		});
	}

	@Test
	void permitsLetThatManyCallersIn() {
		this.contextRunner.run((context) -> {
			Stock stock = context.getBean(Stock.class);
			DistributeLock lock = context.getBean(DistributeLock.class);
			try (LockHandle one = elsewhere(lock, LockRequest.of("export").withPermits(2))) {
				assertThat(stock.export()).isEqualTo("exported");
				try (LockHandle two = elsewhere(lock, LockRequest.of("export").withPermits(2))) {
					assertThatExceptionOfType(LockFailedException.class).isThrownBy(stock::export);
				}
			}
		});
	}

	@Test
	void aCollectionFieldGivesAKeyPerElementTakenAllOrNothing() {
		this.contextRunner.run((context) -> {
			Stock stock = context.getBean(Stock.class);
			DistributeLock lock = context.getBean(DistributeLock.class);
			MemoryLockBackend store = (MemoryLockBackend) context.getBean(LockBackend.class);
			assertThat(stock.reserve(List.of(1L, 2L), () -> store.isLocked("stock_1") && store.isLocked("stock_2")))
				.isTrue();
			try (LockHandle held = elsewhere(lock, LockRequest.of("stock_2"))) {
				assertThatExceptionOfType(LockFailedException.class)
					.isThrownBy(() -> stock.reserve(List.of(1L, 2L), () -> true));
				assertThat(store.isLocked("stock_1")).isFalse();
			}
			assertThatIllegalArgumentException().isThrownBy(() -> stock.reserve(List.of(), () -> true))
				.withMessageContaining("is empty");
		});
	}

	@Test
	void aFairLockIsTakenThroughTheAnnotation() {
		this.contextRunner.run((context) -> {
			Stock stock = context.getBean(Stock.class);
			assertThat(stock.fair()).isEqualTo("fair");
		});
	}

	@Test
	void invalidKindsFailAtStartup() {
		this.contextRunner.withUserConfiguration(BadKindConfiguration.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidLockableException.class)
				.hasMessageContaining("permits is combined with mode or fair"));
	}

	/** Taken on another thread, which this thread cannot re-enter. */
	private static LockHandle elsewhere(DistributeLock lock, LockRequest request) throws Exception {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return lock.tryAcquire(request).orElseThrow();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}).get(10, TimeUnit.SECONDS);
	}

	@Configuration(proxyBeanMethods = false)
	static class StockConfiguration {

		@Bean
		LockBackend memoryLockBackend() {
			return new MemoryLockBackend();
		}

		@Bean
		Stock stock() {
			return new Stock();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadKindConfiguration {

		@Bean
		BadKind badKind() {
			return new BadKind();
		}

	}

	public static class Stock {

		@Lockable(key = "stock", fields = "product", mode = LockMode.READ, waitTimeMs = 5000)
		public void read(String product, CountDownLatch inside, CountDownLatch release) {
			inside.countDown();
			try {
				release.await(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@Lockable(key = "stock", fields = "product", mode = LockMode.WRITE)
		public String write(String product) {
			return "written";
		}

		@Lockable(key = "export", permits = 2)
		public String export() {
			return "exported";
		}

		@Lockable(key = "stock", fields = "productIds", keyPerElement = true, waitTimeMs = 200)
		public boolean reserve(List<Long> productIds, java.util.function.BooleanSupplier allLocked) {
			return allLocked.getAsBoolean();
		}

		@Lockable(key = "queue", fair = true)
		public String fair() {
			return "fair";
		}

	}

	public static class BadKind {

		@Lockable(key = "bad", permits = 2, mode = LockMode.READ)
		public void bad() {
		}

	}

}
