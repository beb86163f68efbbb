package io.github.distributelock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariDataSource;
import io.github.distributelock.Closeables;
import io.github.distributelock.LockHandle;
import io.github.distributelock.LockRequest;
import io.github.distributelock.Lockable;
import io.github.distributelock.core.DefaultDistributeLock;
import io.github.distributelock.jdbc.JdbcLockBackend;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @Lockable} method returning a {@code CompletableFuture}, called on a thread
 * where the lock completes its non-blocking calls, takes its lock without blocking, as on
 * Redis's and ZooKeeper's client threads. On JDBC those calls complete on the backend's
 * statement threads ({@code distributelock-jdbc}, 4 of them; docs/manual-api.md), and so
 * does the pipeline downstream of a locked {@code Mono}, which goes on on the thread that
 * completed the release (docs/reactive.md); a call parked there in a wait for its lock
 * held a thread that its own acquisition's statements waited for, and with as many such
 * calls as the pool has threads no statement ran again: the calls never ended, and the
 * instance's renewals and releases stopped with them. The lock service's scheduler, whose
 * timers end the waits of non-blocking calls, is such a thread too.
 */
class LockableFutureOnTheLocksOwnThreadsTests {

	/** JdbcLockBackend.STATEMENT_THREADS. */
	private static final int STATEMENT_THREADS = 4;

	@RegisterExtension
	final Closeables closeables = new Closeables();

	private DefaultDistributeLock lock;

	private Invoices invoices;

	@BeforeEach
	void lockOnH2() {
		HikariDataSource pool = this.closeables.add(new HikariDataSource());
		pool.setJdbcUrl("jdbc:h2:mem:future-on-lock-threads-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
		pool.setUsername("sa");
		pool.setMaximumPoolSize(20);
		JdbcLockBackend backend = this.closeables.add(new JdbcLockBackend(pool));
		backend.createSchema();
		DefaultDistributeLock lock = this.closeables.add(new DefaultDistributeLock(backend));
		ProxyFactory factory = new ProxyFactory(new Invoices());
		factory.setProxyTargetClass(true);
		factory.addAdvice(new LockableMethodInterceptor(new LockKeyResolver("_", "busy|1"), () -> lock));
		this.lock = lock;
		this.invoices = (Invoices) factory.getProxy();
	}

	@Test
	void futureMethodsCalledOnJdbcStatementThreadsEndByTheirWaitTime() throws Exception {
		DefaultDistributeLock lock = this.lock;
		Invoices invoices = this.invoices;
		// Held by this thread, so that the future methods wait for it, each parking the
		// statement thread it was called on.
		LockHandle inner = lock.tryAcquire(LockRequest.of("jdbc-thread.invoice")).orElseThrow();
		// Held by this thread too until the non-blocking calls for them wait: they then
		// take them, and go on, on statement threads.
		List<LockHandle> heldOrders = new ArrayList<>();
		for (int i = 0; i < STATEMENT_THREADS; i++) {
			heldOrders.add(lock.tryAcquire(LockRequest.of("jdbc-thread.order." + i)).orElseThrow());
		}
		Set<String> calledOn = ConcurrentHashMap.newKeySet();
		CountDownLatch called = new CountDownLatch(STATEMENT_THREADS);
		List<CompletableFuture<String>> flows = new ArrayList<>();
		for (int i = 0; i < STATEMENT_THREADS; i++) {
			flows
				.add(lock.tryAcquireAsync(LockRequest.of("jdbc-thread.order." + i).withWaitTime(Duration.ofSeconds(10)))
					.thenCompose((order) -> {
						calledOn.add(Thread.currentThread().getName());
						called.countDown();
						CompletableFuture<String> invoiced = invoices.invoice();
						order.orElseThrow().releaseAsync();
						return invoiced;
					}));
		}
		// Released without waiting, so that the waiters are let in on the statement
		// thread that has the release's answer: a blocking close lets them in on this
		// thread, and an attempt answered before this thread goes on completes on it.
		heldOrders.forEach(LockHandle::releaseAsync);
		assertThat(called.await(30, TimeUnit.SECONDS)).as("every future method called").isTrue();
		assertThat(calledOn).containsOnly("distributelock-jdbc");
		// Not close(): with the statement threads parked, it would wait for ever on H2,
		// whose blocking callers' statements run on them too.
		inner.releaseAsync();
		// The lock is free now: each call takes it in turn, or fails at its wait time (3
		// s); either way every flow ends.
		assertEveryFlowEnds(flows);
	}

	/**
	 * A non-blocking call that ends at the local gate completes on the lock service's
	 * scheduler (two threads), whose timers end the waits of non-blocking calls: a future
	 * method called there and parked in a wait for its lock would wait for a timer of the
	 * threads it parks.
	 */
	@Test
	void futureMethodsCalledOnTheSchedulerEndByTheirWaitTime() throws Exception {
		LockHandle inner = this.lock.tryAcquire(LockRequest.of("jdbc-thread.invoice")).orElseThrow();
		LockHandle busy = this.lock.tryAcquire(LockRequest.of("scheduler.busy")).orElseThrow();
		try {
			Set<String> calledOn = ConcurrentHashMap.newKeySet();
			List<CompletableFuture<String>> flows = new ArrayList<>();
			// Waits of whole seconds: the continuations below are attached before the
			// scheduler ends the waits even when this thread is held up for a while, or
			// they would run on this thread.
			for (int i = 1; i <= 2; i++) {
				flows
					.add(this.lock.tryAcquireAsync(LockRequest.of("scheduler.busy").withWaitTime(Duration.ofSeconds(i)))
						.thenCompose((none) -> {
							calledOn.add(Thread.currentThread().getName());
							return this.invoices.invoice();
						}));
			}
			// Each future method fails at its wait time (3 s), as this thread holds its
			// lock.
			assertEveryFlowEnds(flows);
			assertThat(calledOn).containsOnly("distributelock-watchdog");
		}
		finally {
			busy.close();
			inner.close();
		}
	}

	/**
	 * As on the other stores' answer threads: a blocking acquisition is refused on a
	 * statement thread with an error that says what to do instead, and a release there is
	 * sent without waiting for it.
	 */
	@Test
	void aBlockingAcquisitionOnAJdbcStatementThreadIsRefused() throws Exception {
		CompletableFuture<String> refusal = this.lock.tryAcquireAsync(LockRequest.of("statement-thread.first"))
			.thenApply((first) -> {
				try {
					this.lock.tryAcquire(LockRequest.of("statement-thread.second"));
					return "taken on " + Thread.currentThread().getName();
				}
				catch (IllegalStateException ex) {
					return ex.getMessage();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return "interrupted";
				}
				finally {
					first.orElseThrow().close();
				}
			});
		assertThat(refusal).succeedsWithin(Duration.ofSeconds(20))
			.asString()
			.contains("distributelock-jdbc, the thread that delivers the store's answers")
			.contains("Use tryAcquireAsync");
		assertThat(this.lock.tryAcquire(LockRequest.of("statement-thread.first"))).isPresent()
			.hasValueSatisfying(LockHandle::close);
	}

	private static void assertEveryFlowEnds(List<CompletableFuture<String>> flows) {
		CompletableFuture<Void> all = CompletableFuture.allOf(flows.toArray(CompletableFuture[]::new));
		assertThat(all.exceptionally((failure) -> null)).as("every flow ended by its wait time plus a margin")
			.succeedsWithin(Duration.ofSeconds(20));
	}

	public static class Invoices {

		@Lockable(key = "jdbc-thread.invoice", waitTimeMs = 3000)
		public CompletableFuture<String> invoice() {
			return CompletableFuture.completedFuture("invoiced");
		}

	}

}
